// Package dockerenv is the only user of the Docker client: it connects to engines, makes sure
// images are present, runs one labelled container per instance, executes commands in it with
// timeouts enforced inside the container, and sweeps containers this tool left behind.
package dockerenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Labels put on every container this tool starts, so that it can find and remove them later.
const (
	LabelTool     = "swebench-run"             // value "1"
	LabelRun      = "swebench-run.run-id"      // the run that started the container
	LabelInstance = "swebench-run.instance-id" // the dataset instance it serves
	LabelRole     = "swebench-run.role"        // "agent" or "eval"
	LabelStarted  = "swebench-run.started"     // RFC 3339 start time
	LabelOwner    = "swebench-run.owner"       // hostname:pid of the process that started it
)

// Engine is one Docker engine. It is safe for concurrent use.
type Engine struct {
	cli  *client.Client
	host string
}

// Connect opens a client for the engine at host ("" means DOCKER_HOST or the default socket),
// negotiates the API version and checks that the engine answers.
func Connect(ctx context.Context, host string) (*Engine, error) {
	opts := []client.Opt{client.FromEnv}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client for %q: %w", hostName(host), err)
	}
	e := &Engine{cli: cli, host: host}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("docker engine %s does not answer (is the daemon running? check `docker info`): %w", hostName(host), err)
	}
	return e, nil
}

func hostName(h string) string {
	if h == "" {
		return "default (DOCKER_HOST or unix:///var/run/docker.sock)"
	}
	return h
}

// Host returns the engine's address as given to Connect.
func (e *Engine) Host() string { return hostName(e.host) }

// Close releases the client's connections.
func (e *Engine) Close() error { return e.cli.Close() }

// PullPolicy says when an image is pulled.
type PullPolicy string

const (
	PullMissing PullPolicy = "missing"
	PullAlways  PullPolicy = "always"
	PullNever   PullPolicy = "never"
)

// ErrImageNotFound reports an image that is neither local nor pullable under the policy.
var ErrImageNotFound = errors.New("image not found")

// EnsureImage makes image available locally according to policy and returns its id.
func (e *Engine) EnsureImage(ctx context.Context, image string, policy PullPolicy) (string, error) {
	if policy != PullAlways {
		res, err := e.cli.ImageInspect(ctx, image)
		if err == nil {
			return res.ID, nil
		}
		if !cerrdefs.IsNotFound(err) {
			return "", fmt.Errorf("inspect image %s: %w", image, err)
		}
		if policy == PullNever {
			return "", fmt.Errorf("%w: %s is not present locally and --pull is never", ErrImageNotFound, image)
		}
	}
	if err := e.pull(ctx, image); err != nil {
		return "", err
	}
	res, err := e.cli.ImageInspect(ctx, image)
	if err != nil {
		return "", fmt.Errorf("inspect image %s after pull: %w", image, err)
	}
	return res.ID, nil
}

func (e *Engine) pull(ctx context.Context, image string) error {
	resp, err := e.cli.ImagePull(ctx, image, client.ImagePullOptions{})
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return fmt.Errorf("%w: pull %s: %v", ErrImageNotFound, image, err)
		}
		return fmt.Errorf("pull %s: %w", image, err)
	}
	defer resp.Close()
	// The pull only completes once its progress stream is read to the end; errors arrive in it.
	for msg, err := range resp.JSONMessages(ctx) {
		if err != nil {
			return fmt.Errorf("pull %s: %w", image, err)
		}
		if msg.Error != nil {
			return fmt.Errorf("pull %s: %s", image, msg.Error.Message)
		}
	}
	return nil
}

// drain discards r; used for streams whose content does not matter.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, r) }
