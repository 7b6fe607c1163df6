package kubeenv_test

import (
	"testing"

	"github.com/swebench-run/swebench-run/kubeenv"
	"github.com/swebench-run/swebench-run/launcher/launchertest"
	"github.com/swebench-run/swebench-run/sandbox"
)

// The launcher's faults on the test cluster: killed, stopped, replaced, written into from inside
// the pod; and its commands' observations equal to pods/exec's.
func TestLauncherFaults(t *testing.T) {
	clusters := map[bool]*kubeenv.Cluster{}
	for _, on := range []bool{true, false} {
		mode := sandbox.LauncherOff
		if on {
			mode = sandbox.LauncherAuto
		}
		clusters[on] = newCluster(t, launcherOptions(t, kubeenv.Options{Capacity: 4}, mode))
	}
	launchertest.Run(t, launchertest.Config{
		Start: func(t *testing.T, on bool) launchertest.Sandbox {
			return start(t, clusters[on], sandbox.Spec{Cwd: "/tmp"})
		},
		Goroutines: []string{"kubeenv.(*Pod).launch"},
	})
}
