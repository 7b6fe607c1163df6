package bench

import (
	"context"
	"testing"

	"github.com/swebench-run/swebench-run/kubeenv/kubetest"
)

// kube returns the Kubernetes test cluster through ConnectKube.
func kube(t *testing.T) *Kube {
	t.Helper()
	env := kubetest.Cluster(t)
	t.Setenv("KUBECONFIG", env.Kubeconfig)
	k, err := ConnectKube(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// One iteration of each Kubernetes measurement, so that they cannot rot.
func TestKubeSmoke(t *testing.T) {
	d, k := docker(t), kube(t)
	ctx := context.Background()
	r, err := MeasureKubeRoundTrip(ctx, d, k, iterations(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := MeasureKubeStart(ctx, d, k, iterations(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := MeasureKubeOverhead(ctx, k, iterations(t), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range [][]Row{r.Rows(), s.Rows(), o.Rows()} {
		for _, row := range rows {
			t.Logf("%s: %s", row.What, row.Measured)
		}
	}
}
