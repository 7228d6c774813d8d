package harness

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Timeouts of process control. Generous: the CI machine has 2 shared cores.
const (
	readyTimeout = 90 * time.Second
	stopGrace    = 15 * time.Second
)

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

// Main runs the tests of a package that uses the harness: goleak checks,
// then the built binary and any containers are removed. Call it from
// TestMain.
func Main(m *testing.M) {
	goleak.VerifyTestMain(m,
		// testcontainers keeps a reaper connection for the life of the binary.
		goleak.IgnoreAnyFunction("github.com/testcontainers/testcontainers-go.(*Reaper).connect.func1"),
		goleak.Cleanup(func(code int) {
			terminateContainers()
			if buildDir != "" {
				_ = os.RemoveAll(buildDir)
			}
			os.Exit(code)
		}))
}

// Binary returns the path of the gateway binary, built once per test run
// with `go build ./cmd/gateway` from the module root.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		if buildDir, err = os.MkdirTemp("", "gateway-it-bin-"); err != nil {
			buildErr = fmt.Errorf("build dir: %w", err)
			return
		}
		buildBin = filepath.Join(buildDir, "gateway")
		cmd := exec.Command("go", "build", "-o", buildBin, "./cmd/gateway")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/gateway: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build gateway: %v", buildErr)
	}
	return buildBin
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the gateway module")
	}
	return filepath.Dir(mod), nil
}

// FreeAddr returns a loopback host:port that was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Process is one running gateway process.
type Process struct {
	Name    string
	Addr    string // GATEWAY_ADDR (serve) or --addr (broker)
	URL     string // http://Addr, for serve
	DataDir string // GATEWAY_DATA_DIR or --data-dir
	LogPath string // stdout and stderr of the process
	Env     []string

	t        testing.TB
	bin      string // executable; empty: the gateway binary
	waitPort bool   // ready when Addr accepts connections, not on the ready line
	cmd      *exec.Cmd
	done     chan struct{}
	err      error // Wait's result, set before done closes
}

// Gateway starts `gateway serve --role=<role>` and waits until it logs that
// it is ready. env holds KEY=VALUE overrides applied last: the defaults are
// a free GATEWAY_ADDR and GATEWAY_EMBEDDED_KAFKA_ADDR, a fresh
// GATEWAY_DATA_DIR, and KAFKA_BROKERS / DATABASE_URL from Environment
// (pass "KAFKA_BROKERS=" to force the embedded broker). The process is
// stopped (SIGTERM, then SIGKILL) when the test ends and its log is shown if
// the test failed.
func Gateway(t testing.TB, role string, env ...string) *Process {
	t.Helper()
	e := Environment(t)
	base := []string{
		"GATEWAY_ADDR=" + FreeAddr(t),
		"GATEWAY_EMBEDDED_KAFKA_ADDR=" + FreeAddr(t),
		"GATEWAY_DATA_DIR=" + t.TempDir(),
		"KAFKA_BROKERS=" + e.KafkaBrokers,
		"DATABASE_URL=" + e.DatabaseURL,
	}
	full := mergeEnv(base, env)
	p := &Process{
		Name:    "serve-" + role,
		Addr:    lookup(full, "GATEWAY_ADDR"),
		DataDir: lookup(full, "GATEWAY_DATA_DIR"),
		Env:     full,
	}
	p.URL = "http://" + p.Addr
	p.start(t, []string{"serve", "--role=" + role}, full)
	return p
}

// Broker starts `gateway broker` (the embedded Kafka-protocol broker as its
// own persisted process) on addr with its data in dataDir, and waits until
// the port accepts connections.
func Broker(t testing.TB, addr, dataDir string) *Process {
	t.Helper()
	p := &Process{Name: "broker", Addr: addr, DataDir: dataDir, waitPort: true}
	p.start(t, []string{"broker", "--addr=" + addr, "--data-dir=" + dataDir}, nil)
	return p
}

func (p *Process) start(t testing.TB, args, env []string) {
	t.Helper()
	p.t = t
	logDir := t.TempDir()
	p.LogPath = filepath.Join(logDir, p.Name+".log")
	logf, err := os.Create(p.LogPath)
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	bin := p.bin
	if bin == "" {
		bin = Binary(t)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = mergeEnv(os.Environ(), env)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", p.Name, err)
	}
	p.done = make(chan struct{})
	go func() {
		p.err = p.cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("---- log of %s (%s), last lines ----\n%s", p.Name, p.LogPath, p.LogTail(80))
		}
	})
	p.awaitReady(t)
}

// awaitReady waits for the ready line (serve) or an open port (broker).
func (p *Process) awaitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(readyTimeout)
	for {
		if p.waitPort {
			if c, err := net.DialTimeout("tcp", p.Addr, time.Second); err == nil {
				c.Close()
				return
			}
		} else if b, err := os.ReadFile(p.LogPath); err == nil &&
			(bytes.Contains(b, []byte(`"msg":"ready"`)) || bytes.Contains(b, []byte("Gateway ready on"))) {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before ready (%v); log:\n%s", p.Name, p.err, p.LogTail(80))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready after %s; log:\n%s", p.Name, readyTimeout, p.LogTail(80))
		}
	}
}

// Kill sends SIGKILL and waits for the process to be gone: a crash.
func (p *Process) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGTERM, waits up to a grace period, then SIGKILLs. It returns
// the process's exit error (nil for a clean exit). Idempotent.
func (p *Process) Stop() error {
	select {
	case <-p.done:
		return p.err
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		p.t.Logf("%s ignored SIGTERM for %s; SIGKILL", p.Name, stopGrace)
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
	}
	return p.err
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// LogTail returns the last n lines of the process log.
func (p *Process) LogTail(n int) string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.LogPath, err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Healthy reports whether GET /healthz answers 200.
func (p *Process) Healthy() bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(p.URL + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// mergeEnv returns base with the KEY=VALUE entries of over replacing or
// adding to it.
func mergeEnv(base, over []string) []string {
	idx := map[string]int{}
	out := make([]string, 0, len(base)+len(over))
	for _, kv := range append(append([]string{}, base...), over...) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

func lookup(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}
