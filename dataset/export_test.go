package dataset

import "testing"

// NewTestHub gives the external tests of this package (package dataset_test, which may import
// the packages that import dataset) the fake HuggingFace hub of hub_test.go.
func NewTestHub(t *testing.T) *fakeHub { return newFakeHub(t) }

// Publish stores files as commit sha of repo and points main at it.
func (h *fakeHub) Publish(repo, sha string, files map[string][]byte) {
	h.addCommit(repo, "main", sha, files)
}

// Endpoint is the hub's URL, for LoadOptions.HFEndpoint.
func (h *fakeHub) Endpoint() string { return h.api.URL }
