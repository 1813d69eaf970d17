package execx

import (
	"io"
	"sync"
)

// lockedWriter serialises the writes of stdout and stderr, which the exec
// package copies from two goroutines when they are not the same *os.File.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
