package submission

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/internal/testenv"
)

// fixture returns a path of the test corpus.
func fixture(t *testing.T, rel string) string {
	t.Helper()
	return testenv.Fixtures(t, filepath.FromSlash(rel))
}

// liteDev loads the Lite dev split (23 instances, with the eval columns) from the corpus.
func liteDev(t *testing.T) Dataset {
	t.Helper()
	return loadDataset(t, fixture(t, "datasets/SWE-bench_Lite.dev.parquet"))
}

func loadDataset(t *testing.T, spec string) Dataset {
	t.Helper()
	l, err := dataset.Load(context.Background(), spec, dataset.LoadOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	return Dataset{Spec: spec, Instances: l.Instances, Source: l.Source}
}

// localLoad loads datasets from local files only.
func localLoad(ctx context.Context, spec string) ([]dataset.Instance, error) {
	l, err := dataset.Load(ctx, spec, dataset.LoadOptions{Offline: true})
	if err != nil {
		return nil, err
	}
	return l.Instances, nil
}

func mustSplit(t *testing.T, name string, custom bool) Split {
	t.Helper()
	s, err := LookupSplit(name, custom)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
