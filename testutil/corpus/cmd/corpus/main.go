// Command corpus fills the test corpus cache (`make testdata` runs it), checks the manifest
// against a local mirror, and adds files to the manifest.
//
//	corpus [flags]                  fill the cache: from the mirror, else from the origins
//	corpus check [flags]            recompute every size and sha256 from the mirror
//	corpus add [flags] PATH ORIGIN  add the mirror's (or ORIGIN's) file PATH to the manifest
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/swebench-run/swebench-run/results"
	"github.com/swebench-run/swebench-run/testutil/corpus"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: go run ./testutil/corpus/cmd/corpus [flags]    fill the test corpus cache (make testdata)
       go run ./testutil/corpus/cmd/corpus check [flags]      recompute every size and sha256 of the manifest from the mirror
       go run ./testutil/corpus/cmd/corpus add [flags] PATH ORIGIN
                                     add the file PATH of the mirror (or downloaded from ORIGIN) to the manifest

Environment: ` + corpus.EnvCache + ` (the cache; default $XDG_CACHE_HOME/swebench-run/testdata),
` + corpus.EnvMirror + ` (a local copy of the corpus; default ../shared/fixtures beside the
repository when it exists), ` + corpus.EnvOrigin + ` (a base URL standing in for every origin host).

Flags:
`

// retryDelay is the wait before the first retry of a failed download (0: the Filler's default).
var retryDelay time.Duration

type options struct {
	dir, mirror, origin, manifest string
	noMirror                      bool
	root                          string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := "fill"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("testdata", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.dir, "dir", "", "the cache directory (default: $"+corpus.EnvCache+", else $XDG_CACHE_HOME/swebench-run/testdata)")
	fs.StringVar(&o.mirror, "mirror", "", "a local copy of the corpus (default: $"+corpus.EnvMirror+", else ../shared/fixtures beside the repository)")
	fs.BoolVar(&o.noMirror, "no-mirror", false, "use no mirror: download every file from its origin")
	fs.StringVar(&o.origin, "origin", os.Getenv(corpus.EnvOrigin), "a base URL standing in for every origin host: https://HOST/PATH is fetched as BASE/HOST/PATH")
	fs.StringVar(&o.manifest, "manifest", "", "the manifest file that add edits and check reads (default: "+corpus.ManifestFile+" in the repository)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	o.root = repoRoot()
	var err error
	switch cmd {
	case "fill":
		if fs.NArg() > 0 {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
			break
		}
		err = fill(ctx, o, stderr)
	case "check":
		if fs.NArg() > 0 {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
			break
		}
		err = check(o, stdout, stderr)
	case "add":
		if fs.NArg() != 2 {
			err = fmt.Errorf("add takes PATH ORIGIN (got %d arguments)", fs.NArg())
			break
		}
		err = add(ctx, o, fs.Arg(0), fs.Arg(1), stdout)
	default:
		err = fmt.Errorf("unknown command %q (fill, check or add)", cmd)
	}
	if err != nil {
		fmt.Fprintf(stderr, "testdata: %v\n", err)
		return 1
	}
	return 0
}

// repoRoot is the directory holding go.mod, from the working directory up ("" if none).
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func (o options) cacheDir() (string, error) {
	if o.dir != "" {
		return filepath.Abs(o.dir)
	}
	return corpus.CacheDir()
}

func (o options) mirrorDir() (string, error) {
	if o.noMirror {
		return "", nil
	}
	if o.mirror != "" {
		abs, err := filepath.Abs(o.mirror)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("-mirror %s: not a directory", o.mirror)
		}
		return abs, nil
	}
	return corpus.MirrorDir(o.root)
}

func (o options) manifestFile() (string, error) {
	if o.manifest != "" {
		return o.manifest, nil
	}
	if o.root == "" {
		return "", errors.New("no go.mod above the working directory: run from the repository or pass -manifest")
	}
	return filepath.Join(o.root, filepath.FromSlash(corpus.ManifestFile)), nil
}

func fill(ctx context.Context, o options, stderr io.Writer) error {
	dir, err := o.cacheDir()
	if err != nil {
		return err
	}
	mirror, err := o.mirrorDir()
	if err != nil {
		return err
	}
	m := corpus.Default()
	f := &corpus.Filler{Dir: dir, Mirror: mirror, Origin: o.origin, Verify: true, RetryDelay: retryDelay}
	res, _ := f.Fill(ctx, m, m.Entries)
	var size int64
	for _, e := range m.Entries {
		size += e.Size
	}
	from := "no mirror"
	if mirror != "" {
		from = "mirror " + mirror
	}
	fmt.Fprintf(stderr, "testdata: %d files (%.1f MB) in %s (%s): %d already there, %d copied from the mirror, %d downloaded, %d generated\n",
		len(m.Entries), float64(size)/1e6, dir, from, res.Cached, res.Mirrored, res.Downloaded, res.Generated)
	report(stderr, res.Failed)
	if n := len(res.Failed); n > 0 {
		return fmt.Errorf("%d of %d files could not be had or verified (nothing partial was left in %s); the tests that need them skip, or fail with CI set", n, len(m.Entries), dir)
	}
	return nil
}

// report prints one line per failed file, except that the files not tried because their host
// did not answer earlier share one line per host.
func report(w io.Writer, failed []*corpus.FileError) {
	type hostDown struct {
		n     int
		first *corpus.FileError
		err   error
	}
	down := map[string]*hostDown{}
	var hosts []string
	for _, fe := range failed {
		var hd *corpus.HostDownError
		if errors.As(fe.Err, &hd) {
			h := down[hd.Host]
			if h == nil {
				h = &hostDown{first: fe, err: hd.Err}
				down[hd.Host] = h
				hosts = append(hosts, hd.Host)
			}
			h.n++
			continue
		}
		fmt.Fprintf(w, "testdata: FAILED %v\n", fe)
	}
	for _, host := range hosts {
		h := down[host]
		fmt.Fprintf(w, "testdata: FAILED %d more files from %s (%s, …): not tried after it did not answer: %v\n", h.n, host, h.first.Path, h.err)
	}
}

func readManifest(o options) (*corpus.Manifest, string, error) {
	file, err := o.manifestFile()
	if err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", err
	}
	m, err := corpus.Parse(bytes.NewReader(data), file)
	return m, file, err
}

// check recomputes every entry from the mirror (derived ones by generating them from the
// mirror's input; entries added after the mirror was made, from their verified copy in the cache)
// and lists the mirror's files that the manifest lacks.
func check(o options, stdout, stderr io.Writer) error {
	m, file, err := readManifest(o)
	if err != nil {
		return err
	}
	mirror, err := o.mirrorDir()
	if err != nil {
		return err
	}
	if mirror == "" {
		return fmt.Errorf("check needs a mirror: ../shared/fixtures beside the repository, $%s or -mirror", corpus.EnvMirror)
	}
	cache, err := o.cacheDir()
	if err != nil {
		return err
	}
	bad, fromCache := 0, 0
	for _, e := range m.Entries {
		src := mirror
		if _, err := os.Stat(filepath.Join(mirror, filepath.FromSlash(e.Path))); errors.Is(err, fs.ErrNotExist) && e.Input() == "" {
			// Files added after the mirror was made (the mirror is read-only data): their
			// verified copy in the cache stands in for it, else they are missing.
			src = cache
			fromCache++
		}
		got, err := entryFrom(context.Background(), m, src, nil, e.Path, e.Origin)
		if err == nil && got != e {
			err = fmt.Errorf("the mirror has %d bytes, sha256 %s; the manifest says %d bytes, sha256 %s", got.Size, got.SHA256, e.Size, e.SHA256)
		}
		if err != nil {
			bad++
			fmt.Fprintf(stdout, "%s: %v\n", e.Path, err)
		}
	}
	var extra []string
	_ = filepath.WalkDir(mirror, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(mirror, p)
		rel = filepath.ToSlash(rel)
		if _, ok := m.Lookup(rel); !ok && rel != "README.md" {
			extra = append(extra, rel)
		}
		return nil
	})
	for _, p := range extra {
		fmt.Fprintf(stdout, "%s: in the mirror, not in the manifest (add it with: go run ./testutil/corpus/cmd/corpus add %s ORIGIN)\n", p, p)
	}
	fmt.Fprintf(stderr, "testdata: %d entries of %s checked against %s (%d the mirror lacks, against the cache %s): %d differ\n", len(m.Entries), file, mirror, fromCache, cache, bad)
	if bad > 0 {
		return fmt.Errorf("%d manifest lines do not match the mirror", bad)
	}
	return nil
}

// entryFrom computes the entry of corpus path p with origin: from the mirror's file, else
// (with dl) downloaded from origin; a derived entry is generated from its input, read alike.
func entryFrom(ctx context.Context, m *corpus.Manifest, mirror string, dl *corpus.Filler, p, origin string) (corpus.Entry, error) {
	read := func(p, origin string) ([]byte, error) {
		if mirror != "" {
			data, err := os.ReadFile(filepath.Join(mirror, filepath.FromSlash(p)))
			if err == nil || !errors.Is(err, fs.ErrNotExist) || dl == nil {
				return data, err
			}
		}
		if dl == nil {
			return nil, errors.New("no mirror to read it from")
		}
		return dl.Download(ctx, corpus.Entry{Path: p, Origin: origin})
	}
	e := corpus.Entry{Path: p, Origin: origin}
	var data []byte
	var err error
	if in := e.Input(); in != "" {
		ie, ok := m.Lookup(in)
		if !ok {
			return e, fmt.Errorf("its input %s is not in the manifest; add it first", in)
		}
		if data, err = read(in, ie.Origin); err == nil {
			data, err = corpus.ParquetToJSONL(in, data)
		}
	} else {
		data, err = read(p, origin)
	}
	if err != nil {
		return e, err
	}
	e.Size, e.SHA256 = int64(len(data)), corpus.SHA256(data)
	return e, nil
}

func add(ctx context.Context, o options, p, origin string, stdout io.Writer) error {
	if err := corpus.CheckPath(p); err != nil {
		return err
	}
	if err := corpus.CheckOrigin(origin); err != nil {
		return err
	}
	m, file, err := readManifest(o)
	if err != nil {
		return err
	}
	mirror, err := o.mirrorDir()
	if err != nil {
		return err
	}
	e, err := entryFrom(ctx, m, mirror, &corpus.Filler{Origin: o.origin}, p, origin)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if err := m.Add(e); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := m.Format(&b); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(file, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n", e)
	return nil
}
