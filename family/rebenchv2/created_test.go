package rebenchv2

import (
	"context"
	"testing"

	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

// The corpus's real row (SWE-rebench-V2's sample.json, written by pandas) holds created_at as
// epoch milliseconds: dataset keeps the number's text, the family reads it as the date it is.
func TestCreatedAt(t *testing.T) {
	path := testenv.Fixtures(t, "more-datasets", "swe-rebench-v2", "sample.json")
	plain, err := dataset.Load(context.Background(), path, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fam, err := dataset.Load(context.Background(), path, dataset.LoadOptions{Families: []dataset.Family{Profile{}}})
	if err != nil {
		t.Fatal(err)
	}
	// 1609298073000 ms is 1609298073 s after the epoch: 2020-12-30 03:14:33 UTC
	// (python3 -c 'import datetime; print(datetime.datetime.fromtimestamp(1609298073, datetime.timezone.utc))').
	if got, want := plain.Instances[0].CreatedAt, "1609298073000"; got != want {
		t.Errorf("without the family: created_at %q, want the number's text %q", got, want)
	}
	if got, want := fam.Instances[0].CreatedAt, "2020-12-30T03:14:33Z"; fam.Instances[0].Family != Name || got != want {
		t.Errorf("as a SWE-rebench-V2 row (family %q): created_at %q, want %q", fam.Instances[0].Family, got, want)
	}

	tests := []struct{ in, want string }{
		{"1609298073", "2020-12-30T03:14:33Z"},
		{"1609298073123", "2020-12-30T03:14:33.123Z"},
		{"1609298073000000", "2020-12-30T03:14:33Z"},
		{"1609298073000000000", "2020-12-30T03:14:33Z"},
		{"2020-12-30T03:14:33Z", "2020-12-30T03:14:33Z"},
		{"", ""},
		{"-5", "-5"},
	}
	for _, tt := range tests {
		if got := createdAt(tt.in); got != tt.want {
			t.Errorf("createdAt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
