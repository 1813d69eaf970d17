//go:build !linux

package manifest

// Birth: no creation time outside Linux; identities are device and inode.
func (OS) Birth(string) (int64, bool) { return 0, false }
