package hostfs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"

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
// through this process, into dst+PartSuffix, and the copy is renamed to
// dst only when three witnesses agree on size and SHA-256: want (the
// file as its host read it when the dump closed it), the bytes that
// crossed this machine, and the file as the destination reads it back
// from its disk. Anything else leaves no file under dst (and removes the
// part), so a load can never start on half a file. It returns the sum.
func Copy(ctx context.Context, from FS, src string, to FS, dst string, want Sum) (Sum, error) {
	part := dst + PartSuffix
	if err := to.MkdirAll(ctx, path.Dir(dst)); err != nil {
		return Sum{}, err
	}
	fail := func(err error) (Sum, error) {
		// A fresh context: the copy's may be cancelled already.
		_ = to.RemoveAll(context.WithoutCancel(ctx), part)
		return Sum{}, err
	}
	pr, pw := io.Pipe()
	h := sha256.New()
	var streamed int64
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		err := from.ReadTo(gctx, src, io.MultiWriter(pw, h, countWriter{&streamed}))
		// The writer sees the end of the stream, or the reader's error.
		pw.CloseWithError(err)
		return err
	})
	g.Go(func() error {
		err := to.WriteFrom(gctx, part, pr)
		pr.CloseWithError(err)
		return err
	})
	if err := g.Wait(); err != nil {
		return fail(fmt.Errorf("copy %s%s to %s%s: %w", hostPrefix(from.Host()), src, hostPrefix(to.Host()), dst, err))
	}
	got, err := to.Sums(ctx, part)
	if err != nil {
		return fail(err)
	}
	g0 := got[0]
	g0.Path = dst
	sum := hex.EncodeToString(h.Sum(nil))
	if g0.Size != want.Size || g0.SHA256 != want.SHA256 || streamed != want.Size || sum != want.SHA256 {
		return fail(&MismatchError{From: hostPrefix(from.Host()) + src, To: hostPrefix(to.Host()) + dst, Want: want, Got: g0,
			Streamed: sum, StreamSize: streamed})
	}
	if err := to.Rename(ctx, part, dst); err != nil {
		return fail(err)
	}
	return g0, nil
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
