package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/compare"
	"github.com/swebench-run/swebench-run/report"
	"github.com/swebench-run/swebench-run/testutil/browsertest"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// synthRun writes a mini-swe-agent run of n instances with its harness logs: instance k replays
// the messages of one of the 23 real trajectories of the fixture run (their extra.response
// copies left out), with words of a Zipf-distributed vocabulary of 200,000 words added to every
// reply and output so that the vocabulary grows with the run as a real one's does, and one word
// of its own ("uniq<k>"). Its report.json is the real instance's, 40% of them marked resolved;
// test_output.txt and patch.diff are links to the real ones.
func synthRun(b testing.TB, n int) (out, logs string) {
	b.Helper()
	src := testenv.Fixtures(b, "runs", "deepseek-chat-lite-dev", "output")
	srcLogs := testenv.Fixtures(b, "runs", "deepseek-chat-lite-dev", "eval-logs")
	paths, _ := filepath.Glob(filepath.Join(src, "*", "*.traj.json"))
	sort.Strings(paths)
	type base struct {
		id    string
		traj  map[string]any
		patch json.RawMessage
	}
	var preds map[string]map[string]json.RawMessage
	data, err := os.ReadFile(filepath.Join(src, "preds.json"))
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(data, &preds); err != nil {
		b.Fatal(err)
	}
	var bases []base
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var t map[string]any
		if err := json.Unmarshal(data, &t); err != nil {
			b.Fatal(err)
		}
		for _, m := range t["messages"].([]any) {
			if extra, ok := m.(map[string]any)["extra"].(map[string]any); ok {
				delete(extra, "response")
			}
		}
		id := filepath.Base(filepath.Dir(p))
		bases = append(bases, base{id, t, preds[id]["model_patch"]})
	}
	dir := b.TempDir()
	out, logs = filepath.Join(dir, "out"), filepath.Join(dir, "logs")
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, 199_999)
	word := func() string { return "w" + strconv.FormatUint(zipf.Uint64(), 36) }
	words := func(k int) string {
		var sb strings.Builder
		for range k {
			sb.WriteString(word())
			sb.WriteByte(' ')
		}
		return sb.String()
	}
	predsOut := map[string]map[string]any{}
	for k := range n {
		bs := bases[k%len(bases)]
		// A new id of the same repository: owner__name-<number>.
		cut := strings.LastIndexByte(bs.id, '-')
		id := fmt.Sprintf("%s-%d", bs.id[:cut], 10000+k)
		msgs := bs.traj["messages"].([]any)
		newMsgs := make([]any, len(msgs))
		for i, m := range msgs {
			mm := map[string]any{}
			for key, v := range m.(map[string]any) {
				mm[key] = v
			}
			if c, ok := mm["content"].(string); ok && (mm["role"] == "assistant" || mm["role"] == "tool") {
				mm["content"] = c + "\n" + words(12)
			}
			newMsgs[i] = mm
		}
		if last := newMsgs[2].(map[string]any); true {
			last["content"] = fmt.Sprintf("%s uniq%d", last["content"], k)
		}
		t := map[string]any{"info": bs.traj["info"], "messages": newMsgs, "trajectory_format": bs.traj["trajectory_format"], "instance_id": id}
		data, err := json.Marshal(t)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(out, id), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, id, id+".traj.json"), data, 0o644); err != nil {
			b.Fatal(err)
		}
		predsOut[id] = map[string]any{"instance_id": id, "model_name_or_path": "deepseek/deepseek-chat", "model_patch": bs.patch}
		// The harness's logs: the real report under the new id.
		var rep map[string]map[string]any
		data, err = os.ReadFile(filepath.Join(srcLogs, bs.id, "report.json"))
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			b.Fatal(err)
		}
		r := rep[bs.id]
		r["resolved"] = rng.Float64() < 0.4
		data, _ = json.Marshal(map[string]any{id: r})
		ld := filepath.Join(logs, id)
		if err := os.MkdirAll(ld, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ld, "report.json"), data, 0o644); err != nil {
			b.Fatal(err)
		}
		for _, f := range []string{"test_output.txt", "patch.diff"} {
			if err := os.Symlink(filepath.Join(srcLogs, bs.id, f), filepath.Join(ld, f)); err != nil {
				b.Fatal(err)
			}
		}
	}
	data, _ = json.Marshal(predsOut)
	if err := os.WriteFile(filepath.Join(out, "preds.json"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return out, logs
}

// diskUsage is the space a folder takes on disk (blocks), and its files' total size.
func diskUsage(b testing.TB, dir string) (disk, size int64, files int) {
	b.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files++
		size += fi.Size()
		disk += (fi.Size() + 4095) / 4096 * 4096
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return disk, size, files
}

// BenchmarkReportScale writes the report of a synthetic run of SWE-bench's size (2,294 instances;
// SWEBENCH_RUN_SCALE_N changes it) and measures it: its size, the time to write it, and in
// Chromium the time to open the overview, to list the instances, to filter them, to search a
// word of one trajectory (the first search loads its shard of the index), and to open an
// instance. Run it with
//
//	go test -run '^$' -bench ReportScale -benchtime 1x ./report/
func BenchmarkReportScale(b *testing.B) {
	n := 2294
	if s := os.Getenv("SWEBENCH_RUN_SCALE_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	start := time.Now()
	out, logs := synthRun(b, n)
	b.Logf("synthetic run of %d instances written in %s", n, time.Since(start).Round(time.Millisecond))
	br := browsertest.Start(b)
	for b.Loop() {
		start = time.Now()
		rep, err := report.Load(context.Background(), []compare.Source{{Path: out, EvalLogs: logs}}, report.Options{})
		if err != nil {
			b.Fatal(err)
		}
		site := filepath.Join(b.TempDir(), "site")
		st, err := rep.Write(context.Background(), site)
		if err != nil {
			b.Fatal(err)
		}
		wrote := time.Since(start)
		disk, size, files := diskUsage(b, site)
		b.ReportMetric(float64(size)/(1<<20), "MiB")
		b.ReportMetric(float64(disk)/(1<<20), "MiB-on-disk")
		b.ReportMetric(float64(st.InstanceBytes)/float64(st.InstanceFiles)/1024, "KiB/instance")
		b.ReportMetric(float64(st.IndexBytes)/(1<<20), "index-MiB")
		b.ReportMetric(wrote.Seconds(), "s-to-write")
		b.Logf("%d instances: %d files, %.1f MiB (%.1f MiB on disk); summary %.0f KiB; instance pages %.1f MiB (%.1f KiB each); index %.1f MiB, %d terms, %d shards (largest %.0f KiB); written in %s",
			n, files, float64(size)/(1<<20), float64(disk)/(1<<20), float64(st.SummaryBytes)/1024, float64(st.InstanceBytes)/(1<<20),
			float64(st.InstanceBytes)/float64(st.InstanceFiles)/1024, float64(st.IndexBytes)/(1<<20), st.IndexTerms, st.IndexShards, largestShard(b, site)/1024, wrote.Round(time.Millisecond))

		timed := func(what string, f func()) time.Duration {
			t0 := time.Now()
			f()
			d := time.Since(t0)
			b.ReportMetric(float64(d.Milliseconds()), "ms-"+what)
			return d
		}
		var p *browsertest.Page
		open := timed("open", func() {
			p = br.Open(b, "file://"+filepath.Join(site, "index.html"))
			p.WaitFor(`document.querySelector('.input-card [data-k="rate"]')`, "the overview", time.Minute)
		})
		list := timed("list", func() {
			browsertest.Eval[bool](p, `(location.hash = '#/instances', true)`)
			p.WaitFor(`document.querySelectorAll('#rows tr').length > 0 && document.getElementById('shown-count')`, "the table", time.Minute)
		})
		filter := timed("filter", func() {
			browsertest.Eval[bool](p, `(location.hash = '#/instances?verdict=R&sort=cost', true)`)
			p.WaitFor(`location.hash.includes('verdict=R') && document.getElementById('shown-count') && document.querySelector('#rows tr td[data-k="verdict"] .v-R')`, "the filter", time.Minute)
		})
		shown := browsertest.Eval[string](p, `document.getElementById('shown-count').textContent`)
		target := n / 2
		word := fmt.Sprintf("uniq%d", target)
		search := timed("search", func() {
			browsertest.Eval[bool](p, `(location.hash = '#/instances?q=`+word+`', true)`)
			p.WaitFor(`document.getElementById('shown-count') && document.getElementById('shown-count').textContent === '1'`, "the search", time.Minute)
		})
		common := timed("search-common", func() {
			browsertest.Eval[bool](p, `(location.hash = '#/instances?q=temperature', true)`)
			p.WaitFor(`document.getElementById('shown-count') && new URLSearchParams(location.hash.split('?')[1]).get('q') === 'temperature' && document.querySelector('#count b')`, "the common search", time.Minute)
		})
		found := browsertest.Eval[string](p, `document.getElementById('shown-count').textContent`)
		inst := timed("instance", func() {
			id := browsertest.Eval[string](p, `document.querySelector('#rows tr').dataset.id`)
			browsertest.Eval[bool](p, `(location.hash = '#/i/`+id+`?r=0', true)`)
			p.WaitFor(`document.querySelector('#trajectory .step')`, "the instance page", time.Minute)
		})
		p.Screenshot("overview-scale")
		b.Logf("Chromium: overview %s, instance list %s, filter %s (%s resolved), search of one trajectory's word %s (%s), common word %s (%s rows), instance page %s; console errors: %v",
			open.Round(time.Millisecond), list.Round(time.Millisecond), filter.Round(time.Millisecond), shown, search.Round(time.Millisecond), word,
			common.Round(time.Millisecond), found, inst.Round(time.Millisecond), p.Errors())
		p.Close()
	}
}

func largestShard(b testing.TB, site string) float64 {
	b.Helper()
	paths, _ := filepath.Glob(filepath.Join(site, "data", "search", "*.js"))
	var m int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Size() > m {
			m = fi.Size()
		}
	}
	return float64(m)
}
