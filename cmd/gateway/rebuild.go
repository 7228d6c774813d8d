package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
)

func cmdRebuild(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	return usageError{errors.New("not built yet")}
}
