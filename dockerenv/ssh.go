package dockerenv

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"sync"
	"time"
)

// sshDialer returns a dialer that reaches the engine of an ssh://[user@]host[:port] URL the way
// the docker CLI does: `ssh [-l user] [-p port] -- host docker system dial-stdio`, whose stdin
// and stdout are the connection. Authentication is ssh's own (agent, keys, ~/.ssh/config).
func sshDialer(raw string) (func(ctx context.Context, network, addr string) (net.Conn, error), error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("docker host %q: %w", raw, err)
	}
	if u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, fmt.Errorf("docker host %q: want ssh://[user@]host[:port]", raw)
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		return nil, fmt.Errorf("docker host %q: the ssh client is not installed", raw)
	}
	args := []string{"-o", "ConnectTimeout=15"}
	if u.User != nil {
		args = append(args, "-l", u.User.Username())
	}
	if p := u.Port(); p != "" {
		args = append(args, "-p", p)
	}
	args = append(args, "--", u.Hostname(), "docker", "system", "dial-stdio")
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		// The connection outlives the dial's context: the process ends when the conn is closed.
		cmd := exec.Command("ssh", args...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("ssh to %s: %w", u.Host, err)
		}
		return &cmdConn{cmd: cmd, r: stdout, w: stdin, remote: u.Host}, nil
	}, nil
}

// cmdConn is a net.Conn over the stdin and stdout of a process.
type cmdConn struct {
	cmd    *exec.Cmd
	r      io.ReadCloser
	w      io.WriteCloser
	remote string
	once   sync.Once
}

func (c *cmdConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *cmdConn) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *cmdConn) Close() error {
	c.once.Do(func() {
		_ = c.w.Close()
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
	})
	return nil
}
func (c *cmdConn) LocalAddr() net.Addr              { return sshAddr("local") }
func (c *cmdConn) RemoteAddr() net.Addr             { return sshAddr(c.remote) }
func (c *cmdConn) SetDeadline(time.Time) error      { return nil }
func (c *cmdConn) SetReadDeadline(time.Time) error  { return nil }
func (c *cmdConn) SetWriteDeadline(time.Time) error { return nil }

type sshAddr string

func (a sshAddr) Network() string { return "ssh" }
func (a sshAddr) String() string  { return string(a) }
