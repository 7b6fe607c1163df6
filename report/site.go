package report

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

//go:embed assets
var assets embed.FS

// marker is the file that tells a report folder written by Write: only such a folder (or an
// empty one) is replaced.
const marker = ".swebench-run-report"

// WriteStats describe a written report.
type WriteStats struct {
	Dir           string
	Files         int
	Bytes         int64 // the whole folder
	SummaryBytes  int64
	InstanceFiles int
	InstanceBytes int64
	IndexShards   int
	IndexBytes    int64
	IndexTerms    int
	Elapsed       time.Duration
}

// Write writes the report as a static site into dir: index.html, the assets, data/summary.js,
// one data/i/<run>/<id>.js per instance and run, and the search index (data/search/<key>.js).
// The site is built beside dir and renamed into place; an existing dir is replaced only when it
// is empty or a report written earlier.
func (r *Report) Write(ctx context.Context, dir string) (*WriteStats, error) {
	start := time.Now()
	if err := checkTarget(dir); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("report %s: %w", dir, err)
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(dir))+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("report %s: %w", dir, err)
	}
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, fmt.Errorf("report %s: %w", dir, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(stage)
		}
	}()
	st := &WriteStats{Dir: dir}
	w := &siteWriter{root: stage, st: st}
	if err := w.assets(); err != nil {
		return nil, err
	}
	ix, err := r.writeInstances(ctx, w)
	if err != nil {
		return nil, err
	}
	for k, script := range ix.shards {
		if err := w.file(filepath.Join("data", "search", k+".js"), script); err != nil {
			return nil, err
		}
	}
	st.IndexShards, st.IndexBytes, st.IndexTerms = len(ix.shards), ix.size(), ix.terms
	sum, err := r.summaryScript(ix.info())
	if err != nil {
		return nil, err
	}
	st.SummaryBytes = int64(len(sum))
	if err := w.file(filepath.Join("data", "summary.js"), sum); err != nil {
		return nil, err
	}
	if err := w.file(marker, []byte("swebench-run report "+r.opts.Version+"\n")); err != nil {
		return nil, err
	}
	// GitHub Pages runs Jekyll, which leaves out files whose names start with "_" (index shards
	// of words such as _init) unless told not to.
	if err := w.file(".nojekyll", nil); err != nil {
		return nil, err
	}
	if err := syncDir(stage); err != nil {
		return nil, err
	}
	// Swap: the old report (if any) goes, the new one takes its name.
	if _, err := os.Stat(dir); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("report %s: remove the previous report: %w", dir, err)
		}
	}
	if err := os.Rename(stage, dir); err != nil {
		return nil, fmt.Errorf("report %s: %w", dir, err)
	}
	done = true
	st.Elapsed = time.Since(start)
	return st, nil
}

// checkTarget refuses a dir that exists and holds anything but an earlier report.
func checkTarget(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("report -o %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
		return nil
	}
	return fmt.Errorf("report -o %s: the folder exists and is not a report written by swebench-run (no %s); choose another folder or empty it", dir, marker)
}

// siteWriter writes files below root and counts them.
type siteWriter struct {
	root string
	mu   sync.Mutex
	dirs map[string]bool
	st   *WriteStats
}

func (w *siteWriter) file(rel string, data []byte) error {
	p := filepath.Join(w.root, rel)
	d := filepath.Dir(p)
	w.mu.Lock()
	if w.dirs == nil {
		w.dirs = map[string]bool{}
	}
	if !w.dirs[d] {
		if err := os.MkdirAll(d, 0o755); err != nil {
			w.mu.Unlock()
			return fmt.Errorf("report: %w", err)
		}
		w.dirs[d] = true
	}
	w.st.Files++
	w.st.Bytes += int64(len(data))
	w.mu.Unlock()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// assets copies the embedded pages.
func (w *siteWriter) assets() error {
	return fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "assets/")
		if rel != "index.html" {
			rel = filepath.Join("assets", rel)
		}
		return w.file(rel, data)
	})
}

// writeInstances writes every instance file and returns the search index of their texts.
func (r *Report) writeInstances(ctx context.Context, w *siteWriter) (*index, error) {
	b := newIndexBuilder()
	var mu sync.Mutex
	n := uint32(len(r.ids))
	seenProblem := make([]bool, n)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for k, rd := range r.runs {
		for j := range rd.Instances {
			id := rd.Instances[j].ID
			i, ok := r.index[id]
			if !ok {
				continue
			}
			g.Go(func() error {
				if err := ctx.Err(); err != nil {
					return err
				}
				d, text, err := r.instance(k, id)
				if err != nil {
					return err
				}
				script, err := r.instanceScript(k, id, d, true)
				if err != nil {
					return err
				}
				if err := w.file(instanceFile(k, id), script); err != nil {
					return err
				}
				trajTerms := docTerms(text)
				var probTerms []string
				mu.Lock()
				first := !seenProblem[i] && d.Problem != ""
				if first {
					seenProblem[i] = true
				}
				mu.Unlock()
				if first {
					probTerms = docTerms(d.Problem)
				}
				mu.Lock()
				defer mu.Unlock()
				w.st.InstanceFiles++
				w.st.InstanceBytes += int64(len(script))
				b.add(n+uint32(k)*n+uint32(i), trajTerms)
				b.add(uint32(i), probTerms)
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return b.finish(), nil
}

// instanceFile is the path of an instance's script below the site's root.
func instanceFile(run int, id string) string {
	return filepath.Join("data", "i", fmt.Sprint(run), encodeID(id)+".js")
}

// encodeID makes an instance id a file name: letters, digits, '.', '_' and '-' stay, any other
// byte becomes ~XX (hex). The pages do the same.
func encodeID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' && i > 0 || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "~%02x", c)
		}
	}
	return b.String()
}

// instanceScript is SR.inst(run, "id", data): data is the JSON, or with compress its gzip in
// base64 (the page inflates it with DecompressionStream).
func (r *Report) instanceScript(run int, id string, d *instanceData, compress bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("report: instance %s: %w", id, err)
	}
	// The last line of defence: no secret value of the environment, whatever field it hid in.
	body := []byte(r.opts.Redactor.Text(string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))))
	if compress {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.DefaultCompression)
		zw.Write(body)
		zw.Close()
		enc := base64.StdEncoding.EncodeToString(z.Bytes())
		quoted, _ := json.Marshal(enc)
		body = quoted
	}
	qid, _ := json.Marshal(id)
	out := make([]byte, 0, len(body)+len(qid)+24)
	out = fmt.Appendf(out, "SR.inst(%d,%s,", run, qid)
	out = append(out, body...)
	out = append(out, ");\n"...)
	return out, nil
}

// summaryScript is data/summary.js.
func (r *Report) summaryScript(search *searchInfo) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("SR.summary(")
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.summary(search)); err != nil {
		return nil, fmt.Errorf("report: summary: %w", err)
	}
	buf.Truncate(buf.Len() - 1)
	buf.WriteString(");\n")
	return []byte(r.opts.Redactor.Text(buf.String())), nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
