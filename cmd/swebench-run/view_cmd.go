package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/swebench-run/swebench-run/report"
)

// newViewCmd serves the report's pages from the live inputs. stop (the first Ctrl-C) and the
// command's context (the second) both end it.
func newViewCmd(stop <-chan struct{}) *cobra.Command {
	var (
		f    reportInputFlags
		addr string
		port int
	)
	cmd := &cobra.Command{
		Use:     "view [flags] [LABEL=]INPUT …",
		Short:   "serve the report's pages from live output folders on 127.0.0.1",
		GroupID: groupResults,
		Long: `Serves the pages of report (overview, instances, one instance, compare) from the inputs as they
are now: the figures are read again at most every second and the pages poll them, so a run in
progress shows its counts growing; trajectories are read when their page opens, and the search index
is rebuilt when a trajectory changed. Runs without an evaluation yet are read (their instances are
not submitted until graded).

It listens on 127.0.0.1 unless --addr says otherwise, answers only for local host names, serves the
embedded pages, the generated data and the trajectory and evaluation files of known instances
(trajectories with their configs redacted) — nothing else below the folders, and nothing above them.
Ctrl-C stops it.`,
		Example: `  # watch a run while it runs
  swebench-run view runs/sonnet
  # two runs on another port
  swebench-run view base=runs/sonnet-4 new=runs/sonnet-4-5 --baseline base --port 9000
  # a mini-swe-agent run and its harness logs
  swebench-run view out/ --eval-logs logs/run_evaluation/r1/deepseek__deepseek-chat`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return fmt.Errorf("%w: view needs at least one input", errUsage)
			case port < 0 || port > 65535:
				return fmt.Errorf("%w: --port must lie between 0 and 65535, got %d", errUsage, port)
			case net.ParseIP(addr) == nil && addr != "localhost":
				return fmt.Errorf("%w: --addr %q is not an IP address (e.g. 127.0.0.1, or 0.0.0.0 for every interface)", errUsage, addr)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return serveView(cmd.Context(), stop, args, f, net.JoinHostPort(addr, strconv.Itoa(port)), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
		ValidArgsFunction: completeDirs,
	}
	fs := cmd.Flags()
	fs.StringVar(&addr, "addr", "127.0.0.1", "address to listen on (0.0.0.0: every interface — anyone who reaches it sees the runs)")
	fs.IntVar(&port, "port", 8080, "port to listen on (0: any free port)")
	metavar(fs, "addr", "IP")
	metavar(fs, "port", "N")
	f.register(cmd)
	_ = fs.MarkHidden("allow-unevaluated") // view reads runs in progress anyway
	flagGroup(fs, "Server", "addr", "port", "title")
	return cmd
}

// serveView serves until stop is closed or ctx is cancelled.
func serveView(ctx context.Context, stop <-chan struct{}, args []string, f reportInputFlags, addr string, stdout, stderr io.Writer) error {
	srcs, err := f.sources(args)
	if err != nil {
		return err
	}
	srv := report.NewServer(srcs, f.options())
	srv.Log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := srv.Load(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("view: listen on %s: %w (another server there? choose --port)", addr, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-stop: // nil: never
			cancel()
		case <-ctx.Done():
		}
	}()
	defer func() { cancel(); <-watched }()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	fmt.Fprintf(stdout, "http://%s/\n", net.JoinHostPort(host, port))
	fmt.Fprintln(stderr, "view: serving; Ctrl-C stops")
	err = srv.Serve(ctx, ln)
	fmt.Fprintln(stderr, "view: stopped")
	return err
}
