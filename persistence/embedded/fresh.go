package embedded

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// fresh is a migrated, empty database file, made once per process the
// first time Open creates a database. Every later new database in the same
// process starts as a copy of it instead of running every migration again:
// migrating costs about 0.1 s of CPU, 1-2 s under -race, and the test suites
// create hundreds of data dirs. A server creates one, so it pays one extra
// migration into a temporary directory and keeps the image (about 0.5 MB).
var fresh struct {
	once  sync.Once
	image []byte
	err   error
}

// freshImage returns the migrated empty database, making it on first use.
func freshImage(ctx context.Context) ([]byte, error) {
	fresh.once.Do(func() {
		dir, err := os.MkdirTemp("", "alertd-fresh-*")
		if err != nil {
			fresh.err = err
			return
		}
		defer os.RemoveAll(dir)
		s, err := open(ctx, dir)
		if err != nil {
			fresh.err = err
			return
		}
		// Closing the last connection checkpoints the WAL into the file
		// and removes it, so the file alone is the whole database.
		if err := s.Close(); err != nil {
			fresh.err = err
			return
		}
		fresh.image, fresh.err = os.ReadFile(filepath.Join(dir, FileName))
	})
	return fresh.image, fresh.err
}

// seedNew writes the fresh image to path when no database is there yet. It
// creates the file under a temporary name and links it into place, so two
// Opens of one new directory at once (which the store allows) never see a
// half-written file: the second link fails and that Open uses the first's.
// It is only a shortcut: when any step fails (no temporary directory, no
// hard links on this file system), Open migrates the new file itself.
func seedNew(ctx context.Context, path string) {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return // there already, or an error Open reports itself
	}
	image, err := freshImage(ctx)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+FileName+".new-*")
	if err != nil {
		return
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(image)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err != nil || cerr != nil {
		return
	}
	_ = os.Link(tmp.Name(), path) // fs.ErrExist: another Open was first
}
