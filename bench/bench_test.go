package bench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/swebench-run/swebench-run/launcher/launchertest"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// iterations is 1 (the smoke version that runs in `make test`) unless BENCH_N says otherwise.
func iterations(t testing.TB) int {
	if s := os.Getenv("BENCH_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("BENCH_N=%q: %v", s, err)
		}
		return n
	}
	return 1
}

func docker(t testing.TB) *Docker {
	t.Helper()
	e := testenv.Docker(t) // skips in -short mode or without a daemon (fails under CI)
	testenv.RequireImage(t, e, BaseImage)
	LauncherBinaries = launchertest.Binaries(t) // this checkout's launcher
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

func TestRoundTripSmoke(t *testing.T) {
	d := docker(t)
	r, err := MeasureRoundTrip(context.Background(), d, iterations(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func TestCommandCostSmoke(t *testing.T) {
	d := docker(t)
	c, err := MeasureCommandCost(context.Background(), d, iterations(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range c.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func TestInstanceCostSmoke(t *testing.T) {
	d := docker(t)
	c, err := MeasureInstanceCost(context.Background(), d, iterations(t), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range c.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func TestOverheadSmoke(t *testing.T) {
	d := docker(t)
	o, err := MeasureOverhead(context.Background(), d, iterations(t), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range o.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

// binDir holds the CLI built once for the tests of this package (removed by TestMain).
var (
	binDir   string
	builtBin string
)

func TestMain(m *testing.M) {
	binDir, _ = os.MkdirTemp("", "swebench-run-bench-")
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

func binary(t *testing.T) string {
	t.Helper()
	if builtBin == "" {
		bin, err := BuildBinary(context.Background(), binDir)
		if err != nil {
			t.Fatal(err)
		}
		builtBin = bin
	}
	return builtBin
}

func TestScaleSmoke(t *testing.T) {
	d := docker(t)
	spec := ScaleSpec{Instances: 2 * iterations(t), Workers: 2, Delay: 10 * time.Millisecond}
	s, err := MeasureScale(context.Background(), binary(t), t.TempDir(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Statuses["Submitted"], spec.Instances; got != want {
		t.Errorf("Submitted instances = %d, want %d (%v)", got, want, s.Statuses)
	}
	if s.Floor, err = MeasureFloor(context.Background(), d, spec); err != nil {
		t.Fatal(err)
	}
	for _, row := range s.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func TestFloodSmoke(t *testing.T) {
	docker(t)
	f, err := MeasureFlood(context.Background(), binary(t), t.TempDir(), 4<<20)
	if err != nil {
		t.Fatal(err)
	}
	if f.Problem != "" {
		t.Errorf("flood observation: %s", f.Problem)
	}
	for _, row := range f.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func TestResumeSmoke(t *testing.T) {
	docker(t)
	r, err := MeasureResume(context.Background(), binary(t), t.TempDir(), 100*iterations(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func TestLoadSmoke(t *testing.T) {
	testenv.Fixtures(t, VerifiedCorpusPath) // skips without the corpus (fails with CI set)
	l, err := MeasureLoad(t.TempDir(), iterations(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range l.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func TestExportSmoke(t *testing.T) {
	e, err := MeasureExport(context.Background(), binary(t), t.TempDir(), []int{20 * iterations(t), 100 * iterations(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Runs) != 4 {
		t.Errorf("%d exports, want 2 sizes × 2 formats", len(e.Runs))
	}
	for _, row := range e.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func BenchmarkExec(b *testing.B) {
	d := docker(b)
	ctx := context.Background()
	c, err := d.StartBase(ctx, "bench-exec")
	b.Cleanup(func() {
		if c != nil {
			c.Remove(ctx)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ours", func(b *testing.B) {
		opts := RunnerExecOptions()
		for b.Loop() {
			if _, err := OurExec(ctx, c, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			if _, err := RawExec(ctx, d.Cli, c.ID(), "/tmp", PlainArgv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("subprocess", func(b *testing.B) {
		// Timed inside the peer script; the interpreter's start-up is excluded.
		b.StopTimer()
		ds, err := SubprocessExecs(ctx, c.ID(), "/tmp", b.N)
		if err != nil {
			b.Fatal(err)
		}
		var total time.Duration
		for _, d := range ds {
			total += d
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
	})
}

func BenchmarkInstance(b *testing.B) {
	d := docker(b)
	ctx := context.Background()
	tmp := b.TempDir()
	b.Run("runner", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if _, err := RunnerInstance(ctx, d, tmp, i); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			if _, err := BareInstance(ctx, d, i); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	synth := filepath.Join(b.TempDir(), "synthetic.parquet")
	if err := WriteSyntheticParquet(synth, 20000); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		want       int
	}{{"verified", testenv.Fixtures(b, VerifiedCorpusPath), 500}, {"synthetic20k", synth, 20000}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := TimeLoad(c.path, c.want, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The proxy's measurement needs no Docker: a local provider, the proxy in front of it.
func TestProxySmoke(t *testing.T) {
	r, err := MeasureProxy(context.Background(), ProxySpec{Calls: iterations(t), Concurrency: 4, Delay: 20 * time.Millisecond, Paced: 40 * time.Millisecond}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
	if r.Proxied.N == 0 || r.LoadProxied.N == 0 || r.ProxiedTTFB.Median <= 0 {
		t.Errorf("nothing measured: %+v", r)
	}
}

func TestGuardRepoSmoke(t *testing.T) {
	d := docker(t)
	// A repository of 300 commits with a future of 30 behind a branch and a tag.
	setup := `set -e; mkdir -p /testbed && cd /testbed && git init -q -b main && ` +
		`for i in $(seq 1 300); do echo $i > f$((i % 7)); printf 'commit refs/heads/main\ncommitter b <b@b> %d +0000\ndata 1\nc\nM 100644 inline f%d\ndata %d\n%d\n\n' $i $((i % 7)) ${#i} $i; done | git fast-import --quiet && ` +
		`git branch future main && git tag v1 main && git reset -q --hard main~30`
	g, err := MeasureGuardRepo(context.Background(), d, BaseImage, setup)
	if err != nil {
		t.Fatal(err)
	}
	if g.Commits != 270 || g.CommitsAfter != 300 || g.Past <= 0 || g.None <= 0 || g.NoneResult.Start == g.NoneResult.Head {
		t.Errorf("%+v", g)
	}
	for _, row := range g.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}

func TestGuardDemoSmoke(t *testing.T) {
	testenv.RequireImage(t, testenv.Docker(t), "swebench-run-demo/sweb.eval.x86_64.demo_1776_confparse-31:latest")
	g, err := MeasureGuardDemo(context.Background(), binary(t), t.TempDir(), 1, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Past) != 1 || len(g.AsIs) != 1 || len(g.GuardSeconds) != 6 {
		t.Errorf("%+v", g)
	}
	for _, row := range g.Rows() {
		t.Logf("%s: %s", row.What, row.Measured)
	}
}
