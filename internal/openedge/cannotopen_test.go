package openedge

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCannotOpen(t *testing.T) {
	tests := []struct {
		name   string
		out    string
		errno  syscall.Errno
		ok     bool
		denied bool
	}{
		{"permission", "** Cannot find or open file /db/prod.db, errno = 13. (43)\n", syscall.EACCES, true, true},
		{"Portuguese, digits in the path", "OpenEdge Release 12.8\n** Impossível localizar ou abrir o arquivo /db/2024/p1.db, errno = 13. (43)\n", syscall.EACCES, true, true},
		{"missing", "** Cannot find or open file /73e/dbname.bi, errno = 2. (43)\n", syscall.ENOENT, true, false},
		{"not permitted", "** Cannot find or open file /db/prod.lk, errno = 1. (43)\n", syscall.EPERM, true, true},
		{"(43) only inside a path", "** Cannot find or open file /d/(43)/x, errno = 2. (43)\n", syscall.ENOENT, true, false},
		{"no (43)", "** The database /db/prod is in use in single-user mode. (263)\n", 0, false, false},
		{"no number", "** Cannot find or open file. (43)\n", 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errno, ok := CannotOpen(tt.out)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.errno, errno)
			assert.Equal(t, tt.denied, ok && Denied(errno))
		})
	}
}

func TestLastNumber(t *testing.T) {
	for in, want := range map[string]int{"Processing area 8 :": 8, "A total of 0K of temporary sort disk space was used for area 12.": 12} {
		n, ok := LastNumber(in)
		assert.True(t, ok)
		assert.Equal(t, want, n)
	}
	_, ok := LastNumber("no digits")
	assert.False(t, ok)
}
