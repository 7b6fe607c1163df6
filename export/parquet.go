package export

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// Row is one trajectory in the Parquet file: what it was made on and by, how it ended, what it
// cost, and the conversation as the model saw it. The schema is ours (docs/export.md, and the
// dataset card written beside the file); a figure that is not known is null.
type Row struct {
	InstanceID      string   `parquet:"instance_id"`
	Repo            string   `parquet:"repo,optional"`
	Dataset         string   `parquet:"dataset,optional"`
	DatasetRevision string   `parquet:"dataset_revision,optional"`
	Family          string   `parquet:"family,optional"`
	Model           string   `parquet:"model,optional"`
	ConfigHash      string   `parquet:"config_hash,optional"`
	Run             string   `parquet:"run"` // the input's label: the run's folder, or the sweep cell
	Cell            string   `parquet:"cell,optional"`
	Repeat          int32    `parquet:"repeat,optional"`
	Format          string   `parquet:"trajectory_format"`
	ToolCalling     bool     `parquet:"tool_calling"`
	Tools           string   `parquet:"tools,optional"` // the tool definitions offered, a JSON list (OpenAI chat form)
	ExitStatus      string   `parquet:"exit_status,optional"`
	Resolved        *bool    `parquet:"resolved,optional"`
	Verdict         string   `parquet:"verdict,optional"`
	Cost            *float64 `parquet:"cost,optional"`
	InputTokens     *int64   `parquet:"input_tokens,optional"`
	OutputTokens    *int64   `parquet:"output_tokens,optional"`
	Steps           int32    `parquet:"steps"`
	FormatErrors    int32    `parquet:"format_errors"`
	Flags           []string `parquet:"flags,list"`
	Revealed        bool     `parquet:"flag_revealed"`
	Submission      string   `parquet:"submission,optional"`
	Messages        []RowMsg `parquet:"messages,list"`
}

// RowMsg is one message of a Row.
type RowMsg struct {
	Role       string        `parquet:"role"`
	Kind       string        `parquet:"kind"`
	Content    string        `parquet:"content"`
	ToolCalls  []RowToolCall `parquet:"tool_calls,list"`
	ToolCallID string        `parquet:"tool_call_id,optional"`
	Reasoning  string        `parquet:"reasoning,optional"`
	Trainable  bool          `parquet:"trainable"`
}

// RowToolCall is one tool call of a reply.
type RowToolCall struct {
	ID        string `parquet:"id"`
	Name      string `parquet:"name"`
	Arguments string `parquet:"arguments"`
}

// rowOf makes the Parquet row of a record.
func rowOf(r *Record) (Row, error) {
	c := r.Conversation
	row := Row{
		InstanceID: c.InstanceID, Repo: r.Repo, Dataset: r.Dataset, DatasetRevision: r.DatasetRevision, Family: r.Family,
		Model: r.Model, ConfigHash: r.ConfigHash, Run: r.Run, Cell: r.Cell, Repeat: int32(r.Repeat), Format: c.Format,
		ToolCalling: c.ToolCalling, ExitStatus: c.ExitStatus, Resolved: r.Resolved, Verdict: r.Verdict, Cost: c.Cost,
		Steps: int32(c.Steps), FormatErrors: int32(c.FormatErrors), Flags: c.Flags, Revealed: c.Revealed, Submission: c.Submission,
	}
	if row.Flags == nil {
		row.Flags = []string{}
	}
	if c.ToolCalling {
		tools, err := marshalLine(c.Tools)
		if err != nil {
			return row, err
		}
		row.Tools = string(tools)
	}
	if c.Tokens != nil {
		in, out := int64(c.Tokens.Input), int64(c.Tokens.Output)
		row.InputTokens, row.OutputTokens = &in, &out
	}
	row.Messages = make([]RowMsg, len(c.Messages))
	for i, m := range c.Messages {
		rm := RowMsg{Role: m.Role, Kind: m.Kind, Content: m.Content, ToolCallID: m.ToolCallID, Reasoning: m.Reasoning, Trainable: m.Trainable, ToolCalls: []RowToolCall{}}
		for _, tc := range m.ToolCalls {
			rm.ToolCalls = append(rm.ToolCalls, RowToolCall(tc))
		}
		row.Messages[i] = rm
	}
	return row, nil
}

// Row groups are cut at rowGroupRows rows or rowGroupBytes bytes of text, whichever comes
// first: the writer holds one row group in memory.
const (
	rowGroupRows  = 500
	rowGroupBytes = 16 << 20
)

// parquetWriter writes rows in row groups.
type parquetWriter struct {
	w        *parquet.GenericWriter[Row]
	rows     int
	buffered int // rows in the current row group
	bytes    int // their text
}

func newParquetWriter(out io.Writer, version string) *parquetWriter {
	return &parquetWriter{w: parquet.NewGenericWriter[Row](out,
		parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("swebench-run", version, ""),
	)}
}

func (p *parquetWriter) write(r *Record) error {
	row, err := rowOf(r)
	if err != nil {
		return err
	}
	if _, err := p.w.Write([]Row{row}); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	p.rows++
	p.buffered++
	p.bytes += len(row.Submission)
	for _, m := range row.Messages {
		p.bytes += len(m.Content) + len(m.Reasoning)
		for _, tc := range m.ToolCalls {
			p.bytes += len(tc.Arguments)
		}
	}
	if p.buffered >= rowGroupRows || p.bytes >= rowGroupBytes {
		if err := p.w.Flush(); err != nil {
			return fmt.Errorf("parquet: %w", err)
		}
		p.buffered, p.bytes = 0, 0
	}
	return nil
}

func (p *parquetWriter) close() error {
	if err := p.w.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}
