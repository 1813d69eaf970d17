package hostfs

import (
	"fmt"
	"sync"
	"testing"
)

// An FS is shared by goroutines: a resume rebuilding a remote target
// allows the target's files while the moves to that host check theirs.
// Under -race (as CI runs it) this failed, and a run died of "concurrent
// map read and map write" (TestHostsResumeAfterTheDBA under load).
func TestOwnedAllowBesideChecks(t *testing.T) {
	var o Owned
	o.Own("/work")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				o.Allow(fmt.Sprintf("/db/new/t.d%d", i))
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_ = o.check("tgt", fmt.Sprintf("/db/new/t.d%d", i))
				_ = o.between(fmt.Sprintf("/work/dump/t%d", i))
			}
		}()
	}
	wg.Wait()
	if err := o.check("tgt", "/db/new/t.d7"); err != nil {
		t.Fatalf("an allowed file is refused: %v", err)
	}
}
