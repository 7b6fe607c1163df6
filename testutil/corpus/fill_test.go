package corpus

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// origins is an httptest server standing in for every origin host: it serves
// https://HOST/PATH at /HOST/PATH and counts the requests per path.
type origins struct {
	srv  *httptest.Server
	mu   sync.Mutex
	body map[string][]byte // URL path → body (absent: 404)
	gets map[string]int
}

func newOrigins(t *testing.T) *origins {
	t.Helper()
	o := &origins{body: map[string][]byte{}, gets: map[string]int{}}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.gets[r.URL.Path]++
		b, ok := o.body[r.URL.Path]
		o.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *origins) requests() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, c := range o.gets {
		n += c
	}
	return n
}

// corpusFile is a file of a test manifest: what the manifest says, and what the origin serves.
type corpusFile struct {
	path   string
	data   []byte // the manifest's size and sha256 are those of data
	served []byte // what the origin answers (nil: data; "-" : nothing, 404)
}

// manifest builds a manifest of files with origins on raw.githubusercontent.com, and serves them.
func (o *origins) manifest(t *testing.T, files ...corpusFile) *Manifest {
	t.Helper()
	var lines []string
	for _, f := range files {
		origin := "https://raw.githubusercontent.com/owner/repo/" + commit + "/" + f.path
		lines = append(lines, Entry{Path: f.path, Size: int64(len(f.data)), SHA256: SHA256(f.data), Origin: origin}.String())
		served := f.served
		if served == nil {
			served = f.data
		}
		if string(served) != "-" {
			o.body["/raw.githubusercontent.com/owner/repo/"+commit+"/"+f.path] = served
		}
	}
	m, err := Parse(strings.NewReader(strings.Join(lines, "\n")), "test manifest")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cacheFiles lists every file under dir (temporary files included), slash-separated.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestFillDownloadsVerifiesAndIsANoOpTheSecondTime(t *testing.T) {
	o := newOrigins(t)
	files := []corpusFile{
		{path: "datasets/a.parquet", data: []byte("parquet bytes")},
		{path: "runs/x/b.traj.json", data: []byte(`{"messages": []}`)},
		{path: "top.txt", data: []byte("")},
	}
	m := o.manifest(t, files...)
	dir := t.TempDir()
	f := &Filler{Dir: dir, Origin: o.srv.URL, Verify: true}
	res, err := f.Fill(context.Background(), m, m.Entries)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Downloaded, 3; got != want {
		t.Errorf("downloaded %d files, want %d (%+v)", got, want, res)
	}
	for _, file := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file.path)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, file.data) {
			t.Errorf("%s = %q, want %q", file.path, got, file.data)
		}
	}
	if got, want := o.requests(), 3; got != want {
		t.Errorf("%d requests, want %d", got, want)
	}

	res, err = f.Fill(context.Background(), m, m.Entries)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached != 3 || res.Downloaded != 0 {
		t.Errorf("second fill: %+v, want 3 cached and nothing downloaded", res)
	}
	if got, want := o.requests(), 3; got != want {
		t.Errorf("second fill made requests: %d in all, want %d", got, want)
	}
}

func TestFillRejectsWrongContent(t *testing.T) {
	tests := []struct {
		name   string
		served string
		want   string
	}{
		{"sha256", "same size, other bytes!", "sha256"},
		{"size", "shorter", "7 bytes, want 23"},
		{"too long", "much longer than the manifest says it is", "more than 23 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newOrigins(t)
			m := o.manifest(t,
				corpusFile{path: "good.json", data: []byte("{}")},
				corpusFile{path: "datasets/bad.json", data: []byte("the bytes of the corpus"), served: []byte(tt.served)},
			)
			dir := t.TempDir()
			f := &Filler{Dir: dir, Origin: o.srv.URL}
			res, err := f.Fill(context.Background(), m, m.Entries)
			if err == nil {
				t.Fatal("Fill accepted a file whose content is not the manifest's")
			}
			if len(res.Failed) != 1 || res.Downloaded != 1 {
				t.Fatalf("result %+v, want one download and one failure", res)
			}
			fe := res.Failed[0]
			if !errors.Is(fe, ErrChecksum) {
				t.Errorf("error %v does not wrap ErrChecksum", fe)
			}
			msg := fe.Error()
			for _, want := range []string{"datasets/bad.json", "https://raw.githubusercontent.com/owner/repo/" + commit + "/datasets/bad.json", tt.want} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not name %q", msg, want)
				}
			}
			if got, want := cacheFiles(t, dir), []string{"good.json"}; !slices.Equal(got, want) {
				t.Errorf("cache holds %v, want only %v (nothing of the rejected file)", got, want)
			}
		})
	}
}

func TestFillNamesAFailedDownload(t *testing.T) {
	o := newOrigins(t)
	m := o.manifest(t, corpusFile{path: "gone.json", data: []byte("{}"), served: []byte("-")})
	dir := t.TempDir()
	_, err := (&Filler{Dir: dir, Origin: o.srv.URL}).Fill(context.Background(), m, m.Entries)
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("Fill = %v, want a *FileError", err)
	}
	if fe.Path != "gone.json" || !strings.Contains(fe.Error(), "404") || !strings.Contains(fe.Error(), fe.Origin) {
		t.Errorf("error %q: want the path, the origin and the HTTP status", fe)
	}
	if got := cacheFiles(t, dir); len(got) != 0 {
		t.Errorf("cache holds %v after a failed download", got)
	}
}

// An origin host that does not answer is tried for the first files only; the others fail at
// once with HostDownError instead of each waiting for the network.
func TestFillStopsTryingAHostThatDoesNotAnswer(t *testing.T) {
	o := newOrigins(t)
	var files []corpusFile
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		files = append(files, corpusFile{path: name + ".json", data: []byte(name)})
	}
	m := o.manifest(t, files...)
	o.srv.Close()
	f := &Filler{Dir: t.TempDir(), Origin: o.srv.URL, Jobs: 1, RetryDelay: 1}
	res, err := f.Fill(context.Background(), m, m.Entries)
	if err == nil || len(res.Failed) != len(files) {
		t.Fatalf("Fill with the origin down: %+v, %v; want every file failed", res, err)
	}
	var hd *HostDownError
	if errors.As(res.Failed[0], &hd) {
		t.Errorf("the first file was not tried: %v", res.Failed[0])
	}
	for _, fe := range res.Failed[1:] {
		if !errors.As(fe, &hd) {
			t.Errorf("%s: %v, want HostDownError", fe.Path, fe.Err)
		}
	}
}

func TestFillFromMirror(t *testing.T) {
	o := newOrigins(t)
	files := []corpusFile{
		{path: "datasets/a.parquet", data: []byte("parquet bytes")},
		{path: "runs/x/b.json", data: []byte(`{"b": 1}`)},
		{path: "runs/x/c.json", data: []byte(`{"c": 1}`)},
	}
	m := o.manifest(t, files...)
	mirror := t.TempDir()
	for _, f := range files {
		p := filepath.Join(mirror, filepath.FromSlash(f.path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		data := f.data
		if f.path == "runs/x/c.json" {
			data = []byte("corrupt in the mirror") // then downloaded from the origin
		}
		if err := os.WriteFile(p, data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	f := &Filler{Dir: dir, Mirror: mirror, Origin: o.srv.URL}
	res, err := f.Fill(context.Background(), m, m.Entries)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mirrored != 2 || res.Downloaded != 1 {
		t.Errorf("result %+v, want 2 from the mirror and the corrupt one downloaded", res)
	}
	o.mu.Lock()
	gets := o.gets
	o.mu.Unlock()
	if len(gets) != 1 || gets["/raw.githubusercontent.com/owner/repo/"+commit+"/runs/x/c.json"] != 1 {
		t.Errorf("requests %v, want only the corrupt mirror file", gets)
	}
	if got, want := cacheFiles(t, dir), []string{"datasets/a.parquet", "runs/x/b.json", "runs/x/c.json"}; !slices.Equal(got, want) {
		t.Errorf("cache holds %v, want %v", got, want)
	}

	// Offline (as the tests fill): the mirror only, never the network.
	dir2 := t.TempDir()
	res, err = (&Filler{Dir: dir2, Mirror: mirror, Origin: o.srv.URL, Offline: true}).Fill(context.Background(), m, m.Entries)
	if err == nil || len(res.Failed) != 1 || res.Failed[0].Path != "runs/x/c.json" || !strings.Contains(res.Failed[0].Error(), "mirror") {
		t.Errorf("offline fill: %+v, %v; want runs/x/c.json failed, naming the mirror", res, err)
	}
	if got := o.requests(); got != 1 {
		t.Errorf("the offline fill made requests (%d in all, want 1)", got)
	}
}

func TestFillReplacesACorruptCacheFile(t *testing.T) {
	o := newOrigins(t)
	m := o.manifest(t, corpusFile{path: "a.json", data: []byte(`{"a": 1}`)})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"a": 2}`), 0o644); err != nil { // same size
		t.Fatal(err)
	}
	res, err := (&Filler{Dir: dir, Origin: o.srv.URL, Verify: true}).Fill(context.Background(), m, m.Entries)
	if err != nil || res.Downloaded != 1 {
		t.Fatalf("fill over a corrupt cache file: %+v, %v; want it downloaded again", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.json")); string(got) != `{"a": 1}` {
		t.Errorf("cache file = %q after the fill", got)
	}
}

type jsonlRow struct {
	Zeta  *string `parquet:"zeta,optional"`
	Alpha *string `parquet:"alpha,optional"`
	Num   int64   `parquet:"num"`
	Flag  bool    `parquet:"flag"`
	Beta  *string `parquet:"Beta,optional"`
}

// The bytes Python's json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
// writes for these rows (checked with CPython 3.11).
const wantJSONL = `{"Beta":"x","alpha":"q\" b\\ n\n t\t r\r c\u0001 g\u0007 bs\b ff\f d` + "\x7f" + ` <>& é 中 ` + "\u2028" + ` →","flag":true,"num":3,"zeta":null}
{"Beta":null,"alpha":"","flag":false,"num":-7,"zeta":"z"}
`

func writeParquet(t *testing.T, rows []jsonlRow) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := parquet.Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func ptr(s string) *string { return &s }

func TestParquetToJSONL(t *testing.T) {
	data := writeParquet(t, []jsonlRow{
		{Alpha: ptr("q\" b\\ n\n t\t r\r c\x01 g\x07 bs\b ff\f d\x7f <>& é 中 \u2028 →"), Num: 3, Flag: true, Beta: ptr("x")},
		{Alpha: ptr(""), Zeta: ptr("z"), Num: -7},
	})
	got, err := ParquetToJSONL("rows.parquet", data)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != wantJSONL {
		t.Errorf("ParquetToJSONL =\n%s\nwant\n%s", got, wantJSONL)
	}
	if _, err := ParquetToJSONL("x.parquet", []byte("not parquet")); err == nil || !strings.Contains(err.Error(), "x.parquet") {
		t.Errorf("ParquetToJSONL of garbage = %v, want an error naming the file", err)
	}
}

func TestFillGeneratesDerivedFiles(t *testing.T) {
	o := newOrigins(t)
	pq := writeParquet(t, []jsonlRow{{Alpha: ptr("a"), Num: 1}})
	m := o.manifest(t, corpusFile{path: "datasets/d.parquet", data: pq})
	want := `{"Beta":null,"alpha":"a","flag":false,"num":1,"zeta":null}` + "\n"
	if err := m.Add(Entry{Path: "datasets/d.jsonl", Size: int64(len(want)), SHA256: SHA256([]byte(want)), Origin: "jsonl:datasets/d.parquet"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	jsonl, _ := m.Lookup("datasets/d.jsonl")
	f := &Filler{Dir: dir, Origin: o.srv.URL}
	res, err := f.Fill(context.Background(), m, []Entry{jsonl}) // its input comes along
	if err != nil {
		t.Fatal(err)
	}
	if res.Downloaded != 1 || res.Generated != 1 {
		t.Errorf("result %+v, want the parquet downloaded and the jsonl generated", res)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "datasets", "d.jsonl")); string(got) != want {
		t.Errorf("d.jsonl = %q, want %q", got, want)
	}

	// A generated file that is not what the manifest says is rejected and not written.
	bad, _ := Parse(strings.NewReader(m.Entries[1].String()+"\ndatasets/d.jsonl 3 "+someSHA+" jsonl:datasets/d.parquet"), "m")
	dir2 := t.TempDir()
	res, err = (&Filler{Dir: dir2, Origin: o.srv.URL}).Fill(context.Background(), bad, bad.Entries)
	if !errors.Is(err, ErrChecksum) || len(res.Failed) != 1 || res.Failed[0].Path != "datasets/d.jsonl" {
		t.Errorf("fill of a derived file with a wrong sha256: %+v, %v", res, err)
	}
	if got, want := cacheFiles(t, dir2), []string{"datasets/d.parquet"}; !slices.Equal(got, want) {
		t.Errorf("cache holds %v, want %v", got, want)
	}
}

func TestEnsure(t *testing.T) {
	t.Setenv(EnvCache, t.TempDir())
	t.Setenv(EnvMirror, t.TempDir()) // an empty mirror
	_, err := Ensure(context.Background(), "", "trajectories/results.json")
	var me *MissingError
	if !errors.As(err, &me) {
		t.Fatalf("Ensure with an empty cache and mirror = %v, want *MissingError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "trajectories/results.json") || !strings.Contains(msg, "make testdata") || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line naming the file and `make testdata`", msg)
	}
	if _, err := Ensure(context.Background(), "", "no/such/file.json"); !errors.Is(err, ErrNotListed) {
		t.Errorf("Ensure of a path not in the manifest = %v, want ErrNotListed", err)
	}
	t.Setenv(EnvMirror, filepath.Join(t.TempDir(), "absent"))
	if _, err := Ensure(context.Background(), "", "trajectories/results.json"); err == nil || !strings.Contains(err.Error(), EnvMirror) {
		t.Errorf("Ensure with a mirror that does not exist = %v, want an error naming %s", err, EnvMirror)
	}
}

func TestCacheDir(t *testing.T) {
	tests := []struct {
		name, env, xdg, home, want string
	}{
		{"override", "/data/corpus", "/xdg", "/home/u", "/data/corpus"},
		{"xdg", "", "/xdg", "/home/u", "/xdg/swebench-run/testdata"},
		{"home", "", "", "/home/u", "/home/u/.cache/swebench-run/testdata"},
		{"relative xdg is ignored", "", "rel", "/home/u", "/home/u/.cache/swebench-run/testdata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvCache, tt.env)
			t.Setenv("XDG_CACHE_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			got, err := CacheDir()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("CacheDir = %s, want %s", got, tt.want)
			}
		})
	}
}

// A 5xx answer is retried; a 404 is not.
func TestFillRetriesServerErrors(t *testing.T) {
	data := []byte(`{"a": 1}`)
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := gets.Add(1)
		switch {
		case strings.HasSuffix(r.URL.Path, "/missing.json"):
			http.NotFound(w, r)
		case n == 1:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			w.Write(data)
		}
	}))
	t.Cleanup(srv.Close)
	base := "https://raw.githubusercontent.com/o/r/" + commit + "/"
	m, err := Parse(strings.NewReader(
		Entry{Path: "a.json", Size: int64(len(data)), SHA256: SHA256(data), Origin: base + "a.json"}.String()+"\n"+
			Entry{Path: "missing.json", Size: 1, SHA256: someSHA, Origin: base + "missing.json"}.String()), "m")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.Lookup("a.json")
	res, err := (&Filler{Dir: t.TempDir(), Origin: srv.URL, RetryDelay: time.Millisecond}).Fill(context.Background(), m, []Entry{a})
	if err != nil || res.Downloaded != 1 || gets.Load() != 2 {
		t.Errorf("after one 503: %+v, %v, %d requests; want the file on the second request", res, err, gets.Load())
	}
	missing, _ := m.Lookup("missing.json")
	gets.Store(0)
	if _, err := (&Filler{Dir: t.TempDir(), Origin: srv.URL, RetryDelay: time.Millisecond}).Fill(context.Background(), m, []Entry{missing}); err == nil || gets.Load() != 1 {
		t.Errorf("a 404: %v after %d requests, want an error after 1", err, gets.Load())
	}
}
