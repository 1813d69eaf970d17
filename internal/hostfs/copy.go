package hostfs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sync/errgroup"
)

// PartSuffix marks a file still being copied: it is never loaded, and
// only a checked copy is renamed to its real name.
const PartSuffix = ".oedl-part"

// MismatchError is a copy whose bytes differ between the two hosts.
type MismatchError struct {
	From, To   string // host:path
	Want, Got  Sum
	Streamed   string // the SHA-256 of the bytes that crossed this machine
	StreamSize int64
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("copy of %s to %s does not match: %d bytes, sha256 %.12s at the source; %d bytes, sha256 %.12s streamed; %d bytes, sha256 %.12s landed",
		e.From, e.To, e.Want.Size, e.Want.SHA256, e.StreamSize, e.Streamed, e.Got.Size, e.Got.SHA256)
}

// Copy moves the file src of host from to dst on host to, while other
// work goes on: the bytes stream from one connection to the other
// through this process into dst+PartSuffix, and the destination names
// the copy dst only when the copy read back from its disk has want's
// size and SHA-256 (want: the file as its host read it when the dump
// closed it). The bytes that crossed this machine are a third witness: a
// copy whose stream differs from want is removed again. Anything else
// leaves no file under dst, so a load can never start on half a file. It
// returns the sum of the copy.
func Copy(ctx context.Context, from FS, src string, to FS, dst string, want Sum) (Sum, error) {
	part := dst + PartSuffix
	pr, pw := io.Pipe()
	h := sha256.New()
	var streamed int64
	var got Sum
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		err := from.ReadTo(gctx, src, io.MultiWriter(pw, h, countWriter{&streamed}))
		// The writer sees the end of the stream, or the reader's error.
		pw.CloseWithError(err)
		return err
	})
	g.Go(func() error {
		var err error
		got, err = to.WriteChecked(gctx, part, dst, pr, want)
		pr.CloseWithError(err)
		return err
	})
	err := g.Wait()
	sum := hex.EncodeToString(h.Sum(nil))
	var mm *MismatchError
	if errors.As(err, &mm) {
		mm.From, mm.Streamed, mm.StreamSize = hostPrefix(from.Host())+src, sum, streamed
		return Sum{}, mm
	}
	if err != nil {
		// A fresh context: the copy's may be cancelled already. (The
		// part of a copy whose destination stopped answering stays
		// there: it never has a name a load reads, and the next copy
		// overwrites it.)
		_ = to.RemoveAll(context.WithoutCancel(ctx), part)
		return Sum{}, fmt.Errorf("copy %s%s to %s%s: %w", hostPrefix(from.Host()), src, hostPrefix(to.Host()), dst, err)
	}
	if streamed != want.Size || sum != want.SHA256 {
		// The copy landed as the source's sum says, but the bytes that
		// crossed here were others: something between the hosts is
		// wrong, and the copy is not trusted.
		_ = to.RemoveAll(context.WithoutCancel(ctx), dst)
		return Sum{}, &MismatchError{From: hostPrefix(from.Host()) + src, To: hostPrefix(to.Host()) + dst, Want: want, Got: got,
			Streamed: sum, StreamSize: streamed}
	}
	return got, nil
}

// IsMismatch reports whether err is a copy whose bytes differ.
func IsMismatch(err error) bool {
	var m *MismatchError
	return errors.As(err, &m)
}

type countWriter struct{ n *int64 }

func (c countWriter) Write(p []byte) (int, error) {
	*c.n += int64(len(p))
	return len(p), nil
}
