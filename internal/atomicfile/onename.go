package atomicfile

import (
	"fmt"
	"os"
	"syscall"
)

// OneName refuses an open file that has more than one name (a hard link).
// oedl opens its own lock, logs and journal in place (O_NOFOLLOW keeps a
// symbolic link out) to truncate or append; a hard link planted at such a
// name, or a `cp -al` snapshot sharing it, would make that write land in
// another file too: a database's extent given the name of a work file is
// the extent. oedl never makes a hard link of its own files (safety trial
// 5).
func OneName(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return fmt.Errorf("%s has %d names (hard links): oedl writes in place only a file that is its own alone; remove the other names, or give a new work directory", f.Name(), st.Nlink)
	}
	return nil
}
