package model

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/dataset"
	"github.com/swebench-run/swebench-run/testutil/testenv"
)

func TestImageURLs(t *testing.T) {
	text := "Steps:\n![screenshot](https://user-images.githubusercontent.com/1/a.png)\n" +
		`<img width="300" alt="x" src="https://user-images.githubusercontent.com/1/b.png">` + "\n" +
		"![again](https://user-images.githubusercontent.com/1/a.png \"title\")\n" +
		"a link, not an image: [docs](https://example.com/c.png), ![local](./d.png)\n" +
		"<IMG SRC='http://example.com/e.gif' />"
	want := []string{"https://user-images.githubusercontent.com/1/a.png", "https://user-images.githubusercontent.com/1/b.png", "http://example.com/e.gif"}
	if got := ImageURLs(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAcceptsImages(t *testing.T) {
	for name, want := range map[string]bool{
		"claude-sonnet-4-5-20250929": true, "anthropic/claude-opus-4-1": true, "claude-2.1": false,
		"gpt-4o": true, "gpt-4.1-mini": true, "gpt-5": true, "o3": true, "o3-mini": false, "o4-mini": true, "o1-mini": false,
		"gemini/gemini-2.5-pro": true, "deepseek-chat": false, "qwen2.5-coder-32b": false, "Qwen/Qwen2.5-VL-72B-Instruct": true,
		"gpt-3.5-turbo": false,
	} {
		if got := acceptsImages(name); got != want {
			t.Errorf("acceptsImages(%q) = %t, want %t", name, got, want)
		}
	}
}

// imageHost stands for user-images.githubusercontent.com: the client it returns sends every
// request to it. Paths ending in .png get a real PNG, big.png one larger than 1 kB, page.png an
// HTML page, gone.png a 404. It counts the requests per path.
type imageHost struct {
	srv    *httptest.Server
	client *http.Client
	png    []byte
	mu     sync.Mutex
	hits   map[string]int
}

func newImageHost(t *testing.T) *imageHost {
	h := &imageHost{hits: map[string]int{}}
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	h.png = b.Bytes()
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.URL.Path]++
		h.mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, "big.png"):
			w.Write(append(append([]byte{}, h.png...), make([]byte, 2048)...))
		case strings.HasSuffix(r.URL.Path, "page.png"):
			w.Write([]byte("<!doctype html><html><body>sign in</body></html>"))
		case strings.HasSuffix(r.URL.Path, "gone.png"):
			http.NotFound(w, r)
		default:
			w.Write(h.png)
		}
	}))
	t.Cleanup(h.srv.Close)
	target, _ := url.Parse(h.srv.URL)
	h.client = &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
	return h
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (h *imageHost) requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.hits {
		n += c
	}
	return n
}

// multimodalTask is the task message of a SWE-bench Multimodal fixture row: its problem
// statement links three screenshots.
func multimodalTask(t *testing.T) (string, []string) {
	t.Helper()
	l, err := dataset.Load(context.Background(), testenv.Fixtures(t, "datasets", "SWE-bench_Multimodal.dev.parquet"),
		dataset.LoadOptions{Selection: &dataset.Selection{IDs: []string{"chartjs__Chart.js-10301"}}})
	if err != nil {
		t.Fatal(err)
	}
	inst := l.Instances[0]
	assets, err := inst.ImageAssets()
	if err != nil || len(assets.ProblemStatement) != 3 {
		t.Fatalf("fixture row: %d problem_statement images, %v", len(assets.ProblemStatement), err)
	}
	return "<pr_description>\n" + inst.ProblemStatement + "\n</pr_description>", assets.ProblemStatement
}

func taskConversation(task string) []agent.Message {
	msgs := conversation()
	msgs[1]["content"] = task
	return msgs
}

// TestProblemImagesReachVisionModels is the acceptance check of problem-statement images: with
// problem_images: auto, a vision model's request carries the fixture row's images (OpenAI
// image_url parts, Anthropic image blocks), a text model's carries their URLs as text, each image
// is downloaded once, and the stored messages keep the text.
func TestProblemImagesReachVisionModels(t *testing.T) {
	task, urls := multimodalTask(t)
	if got := ImageURLs(task); !reflect.DeepEqual(got, urls) {
		t.Fatalf("the task links %q; the row's image_assets list %q", got, urls)
	}
	host := newImageHost(t)
	cacheDir := t.TempDir()
	wantData := base64.StdEncoding.EncodeToString(host.png)
	opts := Options{ImageClient: host.client, ImageCacheDir: cacheDir}

	t.Run("openai vision model", func(t *testing.T) {
		rec, srv := newRecorder(t, respond(200, openAIToolReply))
		p := testProvider(t, Config{ModelName: "gpt-4o", ProblemImages: ProblemImagesAuto}, srv.URL, opts)
		msgs := taskConversation(task)
		for _, id := range []string{"a__b-1", "a__b-2"} { // two instances, two calls each
			m, _ := p.ForInstance(id)
			for range 2 {
				if _, err := m.Query(context.Background(), msgs); err != nil {
					t.Fatal(err)
				}
			}
		}
		if msgs[1]["content"] != task {
			t.Errorf("the stored task message was changed: %v", msgs[1]["content"])
		}
		for i := range 4 {
			content, ok := rec.body(i)["messages"].([]any)[1].(map[string]any)["content"].([]any)
			if !ok || len(content) != 4 {
				t.Fatalf("request %d: task content %v, want a text part and 3 images", i, rec.body(i)["messages"].([]any)[1])
			}
			if content[0].(map[string]any)["text"] != task {
				t.Errorf("request %d: the text part is not the task", i)
			}
			for _, part := range content[1:] {
				pm := part.(map[string]any)
				if pm["type"] != "image_url" || pm["image_url"].(map[string]any)["url"] != "data:image/png;base64,"+wantData {
					t.Errorf("request %d: got part %v, want the PNG as a data URL", i, pm)
				}
			}
		}
		if host.requests() != 3 {
			t.Errorf("the images were downloaded %d times, want 3 (once each)", host.requests())
		}
	})

	t.Run("anthropic vision model, from the disk cache", func(t *testing.T) {
		before := host.requests()
		rec, srv := newRecorder(t, respond(200, anthropicToolReply))
		p := testProvider(t, Config{ModelName: "claude-sonnet-4-5", ProblemImages: ProblemImagesAuto}, srv.URL, opts)
		if _, err := queryOnce(t, p, taskConversation(task)); err != nil {
			t.Fatal(err)
		}
		blocks := rec.body(0)["messages"].([]any)[0].(map[string]any)["content"].([]any)
		var images int
		for _, b := range blocks {
			bm := b.(map[string]any)
			if bm["type"] == "image" {
				images++
				src := bm["source"].(map[string]any)
				if src["type"] != "base64" || src["media_type"] != "image/png" || src["data"] != wantData {
					t.Errorf("got image source %v", src)
				}
			}
		}
		if images != 3 {
			t.Errorf("got %d image blocks in the task turn, want 3: %v", images, blocks)
		}
		if host.requests() != before {
			t.Errorf("%d downloads; the disk cache holds the images", host.requests()-before)
		}
	})

	t.Run("text model gets the URLs", func(t *testing.T) {
		before := host.requests()
		rec, srv := newRecorder(t, respond(200, openAIToolReply))
		p := testProvider(t, Config{ModelName: "hosted_vllm/qwen2.5-coder-32b", CostTracking: "ignore_errors", ProblemImages: ProblemImagesAuto}, srv.URL, opts)
		if _, err := queryOnce(t, p, taskConversation(task)); err != nil {
			t.Fatal(err)
		}
		content, ok := rec.body(0)["messages"].([]any)[1].(map[string]any)["content"].(string)
		if !ok || !strings.HasPrefix(content, task) || strings.Contains(content, "base64") {
			t.Fatalf("got task content %v, want the text with the URLs", rec.body(0)["messages"].([]any)[1])
		}
		for _, u := range urls {
			if !strings.Contains(content[len(task):], "- "+u+"\n") {
				t.Errorf("the URL list lacks %s:\n%s", u, content[len(task):])
			}
		}
		if host.requests() != before {
			t.Errorf("a text model's run downloaded %d images", host.requests()-before)
		}
	})

	t.Run("off by default, as mini-swe-agent", func(t *testing.T) {
		before := host.requests()
		rec, srv := newRecorder(t, respond(200, openAIToolReply))
		p := testProvider(t, Config{ModelName: "gpt-4o"}, srv.URL, opts)
		if _, err := queryOnce(t, p, taskConversation(task)); err != nil {
			t.Fatal(err)
		}
		if got := rec.body(0)["messages"].([]any)[1].(map[string]any)["content"]; got != task || host.requests() != before {
			t.Errorf("got task content %v and %d downloads, want the text alone", got, host.requests()-before)
		}
	})
}

func TestProblemImagesThatCannotBeSent(t *testing.T) {
	host := newImageHost(t)
	task := "![ok](https://img.test/ok.png) ![big](https://img.test/big.png) ![page](https://img.test/page.png) ![gone](https://img.test/gone.png)"
	rec, srv := newRecorder(t, respond(200, openAIToolReply))
	p := testProvider(t, Config{ModelName: "gpt-4o", ProblemImages: ProblemImagesImages, ImageMaxBytes: 1024}, srv.URL,
		Options{ImageClient: host.client, ImageCacheDir: t.TempDir()})
	if _, err := queryOnce(t, p, taskConversation(task)); err != nil {
		t.Fatal(err)
	}
	content := rec.body(0)["messages"].([]any)[1].(map[string]any)["content"].([]any)
	if len(content) != 3 || content[1].(map[string]any)["type"] != "image_url" {
		t.Fatalf("got %v, want the text, one image and a note", content)
	}
	note := content[2].(map[string]any)["text"].(string)
	for _, want := range []string{"https://img.test/big.png (larger than model.image_max_bytes", "https://img.test/page.png (not a PNG, JPEG, GIF or WebP image (text/html", "https://img.test/gone.png (download: 404"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}

	for _, bad := range []Config{{ModelName: "gpt-4o", ProblemImages: "sometimes"}, {ModelName: "gpt-4o", ProblemImages: "auto", ImageMaxBytes: -1}} {
		_, err := New(bad, Options{Env: func(string) string { return testKey }})
		if err == nil || !strings.Contains(err.Error(), "model.") {
			t.Errorf("%+v: got %v, want an error naming the key", bad, err)
		}
	}
}
