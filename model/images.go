package model

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/swebench-run/swebench-run/agent"
	"github.com/swebench-run/swebench-run/internal/atomicfile"
)

// Problem-statement images (SWE-bench Multimodal issues show screenshots). mini-swe-agent sends
// the issue as text, image links included, and so does this package by default
// (problem_images: off), so configs made for it behave the same. With problem_images set, the
// images linked from the task message (the first user message: markdown ![…](url) and HTML
// <img src="url">) are downloaded once (memory and a disk cache), and each request carries them:
// image_url parts (data: URLs) for OpenAI-compatible APIs, image blocks for Anthropic. Models
// that do not accept images get the image URLs listed as text instead. The stored messages (the
// trajectory) keep the text the agent wrote; the images are added to each request, like
// cache-control marks.

// Values of Config.ProblemImages.
const (
	ProblemImagesOff    = "off"    // the text only (mini-swe-agent)
	ProblemImagesAuto   = "auto"   // images for models that accept them, URLs as text for the others
	ProblemImagesImages = "images" // images, whatever the model
	ProblemImagesURLs   = "urls"   // URLs as text, whatever the model
)

const (
	defaultImageMaxBytes = 5 << 20 // the smallest per-image limit of the APIs (Anthropic's 5 MB)
	maxProblemImages     = 20
	imageFetchTimeout    = 60 * time.Second
)

var (
	markdownImage = regexp.MustCompile(`!\[[^\]]*\]\(\s*<?(https?://[^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	htmlImage     = regexp.MustCompile(`(?i)<img\b[^>]*?\bsrc\s*=\s*["']?(https?://[^"'\s>]+)`)
)

// ImageURLs returns the http(s) image links of a text (markdown images and HTML img tags), in
// order of appearance, without duplicates.
func ImageURLs(text string) []string {
	type hit struct {
		at  int
		url string
	}
	var hits []hit
	for _, re := range []*regexp.Regexp{markdownImage, htmlImage} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			hits = append(hits, hit{m[2], text[m[2]:m[3]]})
		}
	}
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].at < hits[j-1].at; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, h := range hits {
		if !seen[h.url] {
			seen[h.url] = true
			out = append(out, h.url)
		}
	}
	return out
}

// acceptsImages guesses from a model's API name whether it reads images.
func acceptsImages(apiModel string) bool {
	n := strings.ToLower(apiModel)
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	switch {
	case strings.HasPrefix(n, "claude-2"), strings.HasPrefix(n, "claude-instant"):
		return false
	case strings.HasPrefix(n, "claude"), strings.HasPrefix(n, "gemini"):
		return true
	case strings.HasPrefix(n, "gpt-4o"), strings.HasPrefix(n, "gpt-4.1"), strings.HasPrefix(n, "gpt-4-turbo"),
		strings.HasPrefix(n, "gpt-4-vision"), strings.HasPrefix(n, "gpt-5"), strings.HasPrefix(n, "chatgpt-4o"):
		return true
	case n == "o1" || strings.HasPrefix(n, "o1-20") || strings.HasPrefix(n, "o3") || strings.HasPrefix(n, "o4"):
		return !strings.Contains(n, "mini") || strings.HasPrefix(n, "o4-mini")
	}
	for _, s := range []string{"vision", "-vl", "vl-", "pixtral", "llava", "llama-4"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// problemImages attaches a task's images to requests. Safe for concurrent use: the provider
// shares one across its instances.
type problemImages struct {
	send     bool // images (true) or URLs as text (false)
	maxBytes int
	client   *http.Client
	cacheDir string // "" = memory only

	mu    sync.Mutex
	cache map[string]*fetchedImage
}

type fetchedImage struct {
	once      sync.Once
	mediaType string
	data      string // base64
	err       error
}

// newProblemImages resolves the problem_images settings; nil means off.
func newProblemImages(cfg Config, apiModel string, opts Options) (*problemImages, error) {
	mode := cfg.ProblemImages
	var send bool
	switch mode {
	case "", ProblemImagesOff:
		return nil, nil
	case ProblemImagesAuto:
		send = acceptsImages(apiModel)
		if cfg.SupportsImages != nil {
			send = *cfg.SupportsImages
		}
	case ProblemImagesImages:
		send = true
	case ProblemImagesURLs:
	default:
		return nil, fmt.Errorf("model.problem_images %q: use off, auto, images or urls", mode)
	}
	if cfg.ImageMaxBytes < 0 {
		return nil, fmt.Errorf("model.image_max_bytes %d: want a positive size in bytes", cfg.ImageMaxBytes)
	}
	pi := &problemImages{send: send, maxBytes: cfg.ImageMaxBytes, client: opts.ImageClient, cacheDir: opts.ImageCacheDir, cache: map[string]*fetchedImage{}}
	if pi.maxBytes == 0 {
		pi.maxBytes = defaultImageMaxBytes
	}
	if pi.client == nil {
		pi.client = &http.Client{Timeout: imageFetchTimeout}
	}
	if pi.cacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			pi.cacheDir = filepath.Join(d, "swebench-run", "images")
		}
	}
	return pi, nil
}

// prepare returns msgs with the task message's content replaced by its images (or their URLs
// as text); msgs itself is not modified. prev, when it holds the result for the same text, is
// reused.
func (pi *problemImages) prepare(ctx context.Context, msgs []agent.Message, prev *preparedTask) []agent.Message {
	k := -1
	for i, m := range msgs {
		if m.Role() == "user" {
			k = i
			break
		}
	}
	if k < 0 {
		return msgs
	}
	text, ok := msgs[k]["content"].(string)
	if !ok {
		return msgs
	}
	if prev.text != text || prev.content == nil {
		prev.text, prev.content = text, pi.content(ctx, text)
	}
	if prev.content == nil {
		return msgs
	}
	out := append([]agent.Message(nil), msgs...)
	m := make(agent.Message, len(msgs[k]))
	for key, v := range msgs[k] {
		m[key] = v
	}
	m["content"] = prev.content
	out[k] = m
	return out
}

// preparedTask remembers the prepared task message of one instance.
type preparedTask struct {
	text    string
	content any
}

// content is the task message's content with its images: a list of parts, or the text with the
// URLs appended; nil when the text links no image.
func (pi *problemImages) content(ctx context.Context, text string) any {
	urls := ImageURLs(text)
	if len(urls) == 0 {
		return nil
	}
	if len(urls) > maxProblemImages {
		urls = urls[:maxProblemImages]
	}
	if !pi.send {
		var b strings.Builder
		b.WriteString(text)
		b.WriteString("\n\nThe issue shows these images, which this model cannot view; their addresses:\n")
		for _, u := range urls {
			b.WriteString("- " + u + "\n")
		}
		return b.String()
	}
	parts := []any{map[string]any{"type": "text", "text": text}}
	var skipped []string
	for _, u := range urls {
		img := pi.fetch(ctx, u)
		if img.err != nil {
			skipped = append(skipped, fmt.Sprintf("- %s (%v)", u, img.err))
			continue
		}
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + img.mediaType + ";base64," + img.data}})
	}
	if len(skipped) > 0 {
		parts = append(parts, map[string]any{"type": "text", "text": "Images of the issue that could not be attached:\n" + strings.Join(skipped, "\n")})
	}
	return parts
}

// fetch downloads an image once per provider (and once per machine with the disk cache).
func (pi *problemImages) fetch(ctx context.Context, url string) *fetchedImage {
	pi.mu.Lock()
	img, ok := pi.cache[url]
	if !ok {
		img = &fetchedImage{}
		pi.cache[url] = img
	}
	pi.mu.Unlock()
	img.once.Do(func() {
		data, err := pi.load(ctx, url)
		if err != nil {
			img.err = err
			return
		}
		img.mediaType = http.DetectContentType(data)
		switch img.mediaType {
		case "image/png", "image/jpeg", "image/gif", "image/webp":
			img.data = base64.StdEncoding.EncodeToString(data)
		default:
			img.err = fmt.Errorf("not a PNG, JPEG, GIF or WebP image (%s)", img.mediaType)
		}
	})
	if img.err != nil && ctx.Err() != nil {
		// Cut short by this caller's cancellation, not the image's fault: let the next try again.
		pi.mu.Lock()
		if pi.cache[url] == img {
			delete(pi.cache, url)
		}
		pi.mu.Unlock()
	}
	return img
}

var errTooLarge = errors.New("larger than model.image_max_bytes")

// load returns the bytes of url from the disk cache or the network.
func (pi *problemImages) load(ctx context.Context, url string) ([]byte, error) {
	sum := sha256.Sum256([]byte(url))
	path := ""
	if pi.cacheDir != "" {
		path = filepath.Join(pi.cacheDir, hex.EncodeToString(sum[:]))
		if data, err := os.ReadFile(path); err == nil && len(data) <= pi.maxBytes {
			return data, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, imageFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := pi.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download: %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(pi.maxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	if len(data) > pi.maxBytes {
		return nil, fmt.Errorf("%w (%d bytes)", errTooLarge, pi.maxBytes)
	}
	if path != "" {
		// The cache is an optimisation: a failed write only means a later download.
		_ = atomicfile.MkdirWrite(path, data, 0o644)
	}
	return data, nil
}
