package kubeenv_test

import (
	"context"
	"os"
	"testing"

	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/kubeenv/kubetest"
	"github.com/swebench-run/swebench-run/sandbox/sandboxtest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// newCluster returns a Cluster of the test cluster with opts (Capacity, Pull never by default).
func newCluster(t *testing.T, opts kubeenv.Options) *kubeenv.Cluster {
	t.Helper()
	env := kubetest.Cluster(t)
	if opts.Pull == "" {
		opts.Pull = kubeenv.PullNever // the test cluster has no registry
	}
	c, err := kubeenv.NewForConfig(context.Background(), env.Config, env.Namespace, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConformance(t *testing.T) {
	sandboxtest.Run(t, sandboxtest.Config{
		Image: kubetest.BaseImage,
		New: func(t *testing.T, capacity int) sandboxtest.Backend {
			return newCluster(t, kubeenv.Options{Capacity: capacity})
		},
	})
}
