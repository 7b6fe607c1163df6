package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
)

// The shipped deepseek-chat price reproduces every cost DeepSeek's run recorded.
func TestPriceTableMatchesRecordedCosts(t *testing.T) {
	priced, ok, err := LookupPrice(Config{}, "deepseek/deepseek-chat", "deepseek-chat")
	price := priced.Price
	if err != nil || !ok {
		t.Fatalf("deepseek-chat price: ok=%v err=%v", ok, err)
	}
	calls := 0
	for _, id := range fixtureIDs(t) {
		data, err := os.ReadFile(filepath.Join(fixtureRuns(t), id, id+".traj.json"))
		if err != nil {
			t.Fatal(err)
		}
		var traj recordedTraj
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&traj); err != nil {
			t.Fatal(err)
		}
		for i, m := range traj.Messages {
			extra, _ := m["extra"].(map[string]any)
			resp, _ := extra["response"].(map[string]any)
			if m["role"] != "assistant" || resp == nil {
				continue
			}
			calls++
			u, _, _ := openAIUsage(resp)
			got, want := price.Cost(u), floatOf(extra["cost"])
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("%s message %d: cost = %v, want the recorded %v (usage %+v)", id, i, got, want, u)
			}
		}
	}
	if calls == 0 {
		t.Fatal("no recorded calls")
	}
}

func TestNewRejectsBeforeAnyCall(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		env     map[string]string
		wantIs  error
		wantErr bool
	}{
		{name: "unknown price", cfg: Config{ModelName: "my-local-model", BaseURL: "SERVER"}, wantIs: ErrUnknownPrice},
		{name: "unknown price_as", cfg: Config{ModelName: "my-local-model", BaseURL: "SERVER", PriceAs: "gpt-9"}, wantIs: ErrUnknownPrice},
		{name: "unreadable prices_file", cfg: Config{ModelName: "gpt-4o", PricesFile: "testdata/no-such-prices.json", CostTracking: "ignore_errors"}, env: map[string]string{"OPENAI_API_KEY": testKey}, wantErr: true},
		{name: "no API key for OpenAI", cfg: Config{ModelName: "gpt-4o"}, wantIs: ErrFatal},
		{name: "no API key for Anthropic", cfg: Config{ModelName: "anthropic/claude-sonnet-4-5"}, wantIs: ErrFatal},
		{name: "unknown model_class", cfg: Config{ModelName: "gpt-4o", ModelClass: "portkey"}, env: map[string]string{"OPENAI_API_KEY": testKey}, wantErr: true},
		{name: "bad action_regex", cfg: Config{ModelName: "gpt-4o", ActionRegex: "(?<=x)y"}, env: map[string]string{"OPENAI_API_KEY": testKey}, wantErr: true},
		{name: "bad cost_tracking", cfg: Config{ModelName: "gpt-4o", CostTracking: "sometimes"}, env: map[string]string{"OPENAI_API_KEY": testKey}, wantErr: true},
		{name: "hosted_vllm without base_url", cfg: Config{ModelName: "hosted_vllm/qwen", CostTracking: "ignore_errors"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, srv := newRecorder(t, respond(200, openAIToolReply))
			if tt.cfg.BaseURL == "SERVER" {
				tt.cfg.BaseURL = srv.URL
			}
			_, err := New(tt.cfg, Options{Env: func(k string) string { return tt.env[k] }})
			if err == nil {
				t.Fatalf("New: no error")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.wantIs)
			}
			if rec.requests() != 0 {
				t.Errorf("server saw %d requests", rec.requests())
			}
		})
	}
}

// The refusal says every way to give a price.
func TestUnknownPriceMessage(t *testing.T) {
	_, srv := newRecorder(t, respond(200, openAIToolReply))
	_, err := New(Config{ModelName: "my-local-model", BaseURL: srv.URL}, Options{Env: func(string) string { return "" }})
	for _, want := range []string{`"my-local-model"`, "model.prices", "model.prices_file", "model.price_as", "cost_tracking: ignore_errors", "swebench-run models"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func TestCostTrackingIgnoreErrorsAndConfigPrices(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		wantCost float64
	}{
		{"ignore_errors: cost 0", Config{ModelName: "my-local-model", CostTracking: "ignore_errors"}, 0},
		{"price from config", Config{ModelName: "my-local-model", Prices: map[string]Price{"my-local-model": {Input: 1, Output: 2}}},
			(2000*1.0 + 100*2.0) / 1e6},
		{"config overrides the shipped price", Config{ModelName: "gpt-4o", Prices: map[string]Price{"gpt-4o": {Input: 1, Output: 1, CacheRead: 0.5}}},
			(1000*1.0 + 1000*0.5 + 100*1.0) / 1e6},
		{"price of another model", Config{ModelName: "my-deployment", PriceAs: "gpt-4.1"},
			(1000*2.0 + 1000*0.5 + 100*8.0) / 1e6},
		{"price from a litellm table", Config{ModelName: "databricks/databricks-claude-3-7-sonnet", ModelClass: "openai", PricesFile: "testdata/litellm-prices-excerpt.json"},
			(2000*2.99999 + 100*15.00002) / 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, srv := newRecorder(t, respond(200, openAIToolReply))
			p := testProvider(t, tt.cfg, srv.URL, Options{})
			got, err := queryOnce(t, p, conversation())
			if err != nil {
				t.Fatalf("Query: %v", err)
			}
			if math.Abs(got.Cost-tt.wantCost) > 1e-12 {
				t.Errorf("cost = %v, want %v", got.Cost, tt.wantCost)
			}
		})
	}
}

func TestBudgetStopsQueries(t *testing.T) {
	rec, srv := newRecorder(t, respond(200, openAIToolReply))
	callCost := (1000*2.50 + 1000*1.25 + 100*10.0) / 1e6 // 0.00475 per call
	budget := NewBudget(2.5 * callCost)                  // two calls fit; a third would not (0.5 calls left)
	p := testProvider(t, Config{ModelName: "gpt-4o"}, srv.URL, Options{Budget: budget})
	for i := range 2 {
		if _, err := queryOnce(t, p, conversation()); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	_, err := queryOnce(t, p, conversation())
	var es agent.ExitStatuser
	if !errors.Is(err, ErrBudgetExhausted) || !errors.Is(err, ErrFatal) || !errors.As(err, &es) || es.ExitStatus() != StatusRunBudgetExhausted {
		t.Fatalf("err = %v, want ErrBudgetExhausted, ErrFatal, RunBudgetExhausted", err)
	}
	if n := rec.requests(); n != 2 {
		t.Errorf("server saw %d requests, want 2 (none once the budget is spent)", n)
	}
	if !budget.Exhausted() || math.Abs(budget.Spent()-2*callCost) > 1e-12 || budget.Calls() != 2 {
		t.Errorf("budget: exhausted %v, spent %v, calls %d", budget.Exhausted(), budget.Spent(), budget.Calls())
	}
}

func TestBudgetConcurrentAdds(t *testing.T) {
	b := NewBudget(0)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Add(0.25)
			}
		}()
	}
	wg.Wait()
	if got, want := b.Spent(), 50*100*0.25; got != want {
		t.Errorf("spent = %v, want %v", got, want)
	}
	if b.Exhausted() {
		t.Errorf("an unlimited budget is exhausted")
	}
	var nilBudget *Budget
	nilBudget.Add(1)
	if nilBudget.Exhausted() || nilBudget.Spent() != 0 {
		t.Errorf("a nil budget is not a no-op")
	}
}
