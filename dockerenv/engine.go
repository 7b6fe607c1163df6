// Package dockerenv is the Docker backend of package sandbox, and the only user of the Docker
// client: it connects to engines (one or many hosts, Pool), makes sure images are present (a pull
// queue and image cache per engine), runs one labelled container per instance, executes commands
// in it (with timeouts that kill every process of the command, through the container's main
// process), and sweeps containers this tool left behind.
//
// Pool implements sandbox.Backend, sandbox.Starter and sandbox.Sweeper; Engine implements
// sandbox.Starter and sandbox.Sweeper; Container implements sandbox.Sandbox.
package dockerenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/swebench-run/swebench-run/sandbox"
)

// Labels put on every container this tool starts, so that it can find and remove them later.
const (
	LabelTool     = "swebench-run"             // value "1"
	LabelRun      = "swebench-run.run-id"      // the run that started the container
	LabelInstance = "swebench-run.instance-id" // the dataset instance it serves
	LabelRole     = "swebench-run.role"        // "agent" or "eval"
	LabelStarted  = "swebench-run.started"     // RFC 3339 start time
	LabelOwner    = "swebench-run.owner"       // hostname:pid of the process that started it
	// LabelTestSession is the test suite run that started the container (EnvTestSession).
	LabelTestSession = "swebench-run.test-session"
)

// EnvTestSession, set by the test suite (scripts/test.sh), labels every container with
// LabelTestSession, so that the suite can remove what a test binary killed by a panic or a
// timeout could not.
const EnvTestSession = "SWEBENCH_RUN_TEST_SESSION"

// WithTestSession adds LabelTestSession to labels when EnvTestSession is set, and returns labels.
func WithTestSession(labels map[string]string) map[string]string {
	if s := os.Getenv(EnvTestSession); s != "" {
		labels[LabelTestSession] = s
	}
	return labels
}

// Engine is one Docker engine with its pull queue and image cache. It is safe for concurrent use.
// It starts the fresh containers of evaluations (sandbox.Starter) and sweeps (sandbox.Sweeper).
type Engine struct {
	cli    *client.Client
	host   string
	images *ImageQueue
	plat   *ocispec.Platform
	// starts bounds the container creates and starts in flight on this engine (see
	// maxConcurrentStarts).
	starts chan struct{}
	// arches caches the architecture of images (for the launcher); noLauncher the
	// architectures whose missing launcher was logged.
	arches, noLauncher sync.Map
}

// maxConcurrentStarts bounds the container creates and starts one engine runs at once. Starting
// is the engine's most expensive call; hundreds at once (a pool of 256 workers starting up)
// make every one of them take minutes, past engineCallTimeout. Queued here, each start gets the
// engine's attention, and the queue costs little: containers start during the instance's first
// model call.
const maxConcurrentStarts = 8

// Connect opens a client for the engine at host ("" means DOCKER_HOST or the default socket),
// negotiates the API version and checks that the engine answers. Its pull queue has the default
// Options.
func Connect(ctx context.Context, host string) (*Engine, error) {
	return ConnectWith(ctx, host, Options{})
}

// ConnectWith is Connect with options for the engine's pull queue and image cache.
//
// host is "unix:///path", "tcp://host:port" (TLS from DOCKER_CERT_PATH and DOCKER_TLS_VERIFY,
// as the docker CLI does), "ssh://[user@]host[:port]" (through `ssh … docker system
// dial-stdio`, which needs the docker CLI on the remote host), or "" for DOCKER_HOST or the
// default socket. Podman works through its Docker-compatible socket, e.g.
// unix:///run/podman/podman.sock (rootful) or unix://$XDG_RUNTIME_DIR/podman/podman.sock.
func ConnectWith(ctx context.Context, host string, o Options) (*Engine, error) {
	opts := []client.Opt{client.FromEnv}
	if strings.HasPrefix(host, "ssh://") {
		dial, err := sshDialer(host)
		if err != nil {
			return nil, err
		}
		// The client needs an http address; the dialer ignores it.
		opts = append(opts, client.WithHost("http://docker.example.com"), client.WithDialContext(dial))
	} else if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client for %q: %w", hostName(host), err)
	}
	e := &Engine{cli: cli, host: host, starts: make(chan struct{}, maxConcurrentStarts)}
	if e.images, err = newImageQueue(e, o); err != nil {
		cli.Close()
		return nil, err
	}
	e.plat = e.images.plat
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

// Close cancels the pulls in flight, waits for them to end and releases the client's
// connections.
func (e *Engine) Close() error {
	e.images.close()
	return e.cli.Close()
}

// PullPolicy says when an image is pulled.
type PullPolicy string

const (
	PullMissing PullPolicy = "missing"
	PullAlways  PullPolicy = "always"
	PullNever   PullPolicy = "never"
)

// Start makes spec.Image present under the engine's pull policy (Options.Pull) and starts a
// container of spec: the fresh container of an evaluation. An image that is neither local nor
// pullable is an error matching sandbox.ErrImageUnavailable.
func (e *Engine) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Sandbox, error) {
	if _, err := e.EnsureImage(ctx, spec.Image, e.images.opts.Pull); err != nil {
		return nil, e.down(err)
	}
	c, err := e.StartContainer(ctx, spec)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// down turns an error of a call whose connection to the engine failed into an *EngineDownError,
// so that it matches sandbox.ErrBackendDown.
func (e *Engine) down(err error) error {
	var d *EngineDownError
	if err == nil || errors.As(err, &d) || !client.IsErrConnectionFailed(err) {
		return err
	}
	return &EngineDownError{Host: e.Host(), Err: err}
}
