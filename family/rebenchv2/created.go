package rebenchv2

import (
	"strconv"
	"time"
)

// createdAt reads a row's created_at as SWE-rebench-V2 stores it: a timestamp, which its JSON
// files hold as a number of epoch milliseconds (pandas' to_json of a datetime column) and its
// parquet files as an integer count since the epoch; dataset keeps such a number's literal text.
// The time is returned as SWE-bench's rows write theirs (RFC 3339 in UTC, "2020-12-30T03:14:33Z",
// with a fraction when it has one), so that what reads created_at (a submission's years, the
// report) reads a date. Any other text (a date already) is returned as it is.
func createdAt(s string) string {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return s
	}
	// The unit is not kept with the number: tell it by its size (a date after 1973 in
	// milliseconds has 12 or 13 digits; seconds have 10, micro- and nanoseconds 16 and 19).
	var t time.Time
	switch {
	case n < 1e11:
		t = time.Unix(n, 0)
	case n < 1e14:
		t = time.UnixMilli(n)
	case n < 1e17:
		t = time.UnixMicro(n)
	default:
		t = time.Unix(0, n)
	}
	return t.UTC().Format(time.RFC3339Nano)
}
