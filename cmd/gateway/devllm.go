package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/governance-gateway/gateway/ingest/llm/llmfake"
)

// cmdDevLLM runs `gateway dev-llm`: a TEST DOUBLE of an LLM vendor (OpenAI
// Chat Completions wire format, deterministic "You said: ..." answers) so
// Full Control can be tried without a vendor key:
//
//	gateway dev-llm --addr 127.0.0.1:8090 &
//	GATEWAY_PROVIDER_OPENAI_BASE_URL=http://127.0.0.1:8090/v1 GATEWAY_PROVIDER_OPENAI_API_KEY=dev gateway serve
func cmdDevLLM(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("dev-llm", flag.ContinueOnError)
	fs.SetOutput(stdout)
	addr := fs.String("addr", "127.0.0.1:8090", "listen address (loopback only)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr: %w", err)}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usageError{errors.New("--addr must be a loopback address: dev-llm is a test double, not a service")}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("dev-llm listen: %w", err)
	}
	srv := &http.Server{Handler: &llmfake.Server{NoRecord: true}, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "dev-llm (a fake LLM for development) on http://%s/v1 (OpenAI Chat Completions format)\n", ln.Addr())
	logger.Info("dev-llm ready", "addr", ln.Addr().String())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
