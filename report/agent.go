package report

import (
	"os"
	"path/filepath"

	"github.com/swebench-run/swebench-run/model/proxy"
	"github.com/swebench-run/swebench-run/results"
)

// agentData is an installed agent's part of an instance page: what ran and the proxy's record
// of its model calls (the request and reply bodies stay in agent/proxy.jsonl).
type agentData struct {
	Name          string      `json:"name"`
	Version       string      `json:"version,omitempty"`
	Wire          string      `json:"wire,omitempty"`
	Command       string      `json:"command,omitempty"`
	InstallSHA256 string      `json:"install_sha256,omitempty"`
	ExitCode      int         `json:"exit_code"`
	Ended         string      `json:"ended,omitempty"`
	Leftover      int         `json:"leftover_processes,omitempty"`
	Torn          bool        `json:"torn_record,omitempty"`
	Calls         []proxyCall `json:"calls"`
}

// proxyCall is one line of the proxy record as the page shows it.
type proxyCall struct {
	Seq            int     `json:"seq"`
	Wire           string  `json:"wire"`
	Kind           string  `json:"kind,omitempty"`
	Path           string  `json:"path"`
	Stream         bool    `json:"stream,omitempty"`
	RequestedModel string  `json:"requested_model,omitempty"`
	Model          string  `json:"model,omitempty"`
	HTTPStatus     int     `json:"http_status"`
	Error          string  `json:"error,omitempty"`
	In             int     `json:"in"`
	Out            int     `json:"out"`
	Cost           float64 `json:"cost"`
	Estimated      bool    `json:"cost_estimated,omitempty"`
	Attempts       int     `json:"attempts,omitempty"`
	DurationMS     float64 `json:"duration_ms"`
	FirstEventMS   float64 `json:"first_event_ms,omitempty"`
}

// addAgent fills d.Agent from an installed agent's trajectory info and the proxy record beside
// it (trajPath's folder/agent/proxy.jsonl).
func (r *Report) addAgent(d *instanceData, t *results.Trajectory, trajPath string) {
	ri := t.Info.SwebenchRun
	if ri == nil || ri.Agent == nil {
		return
	}
	red := r.opts.Redactor
	a := ri.Agent
	ad := &agentData{Name: a.Name, Version: a.Version, Wire: a.Wire, Command: red.Text(a.Command), InstallSHA256: a.InstallSHA256,
		ExitCode: a.ExitCode, Ended: a.Ended, Leftover: a.LeftoverProcesses, Calls: []proxyCall{}}
	record := filepath.Join(filepath.Dir(trajPath), filepath.FromSlash(a.Record))
	calls, torn, err := proxy.ReadRecord(record)
	if err != nil {
		if !os.IsNotExist(err) {
			d.Notes = append(d.Notes, red.Text("the proxy record could not be read: "+err.Error()))
		}
	} else {
		d.Files["proxy.jsonl"] = fileSize(record)
	}
	ad.Torn = torn
	for _, c := range calls {
		pc := proxyCall{Seq: c.Seq, Wire: c.Wire, Kind: c.Kind, Path: c.Path, Stream: c.Stream, RequestedModel: c.RequestedModel, Model: c.Model,
			HTTPStatus: c.HTTPStatus, In: c.Usage.InputTokens, Out: c.Usage.OutputTokens, Cost: c.Cost, Estimated: c.CostEstimated,
			Attempts: c.Attempts, DurationMS: c.DurationMS, FirstEventMS: c.FirstEventMS}
		if c.Error != nil {
			pc.Error = red.Text(c.Error.Status + ": " + c.Error.Message)
		}
		ad.Calls = append(ad.Calls, pc)
	}
	d.Agent = ad
}
