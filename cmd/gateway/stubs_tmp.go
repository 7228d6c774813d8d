package main

import (
	"context"
	"io"
	"log/slog"
)

func cmdRebuild(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error { return usageError{errNotYet} }
func cmdBench(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error  { return usageError{errNotYet} }
