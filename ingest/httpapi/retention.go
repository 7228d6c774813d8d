package httpapi

import (
	"context"
	"time"
)

// sweepBatch bounds one DELETE of the retention sweep (Server.sweepBatch),
// so that SQLite's single write lock is never held long while requests
// wait to write.
const sweepBatch = 1000

// sweepSessions deletes the session turns older than SessionRetention at
// start and then every SessionSweepInterval, until ctx ends. Every API
// replica sweeps; the deletes are idempotent, so they need no leader.
func (s *Server) sweepSessions(ctx context.Context) {
	defer close(s.sweepDone)
	if s.cfg.SessionRetention < 0 {
		return
	}
	t := time.NewTicker(s.cfg.SessionSweepInterval)
	defer t.Stop()
	for {
		n, err := s.deleteOldTurns(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.logger.Warn("session retention sweep failed; retried at the next sweep", "deleted", n, "err", err)
		case n > 0:
			s.logger.Info("session retention sweep", "deleted", n, "retention", s.cfg.SessionRetention)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// deleteOldTurns deletes every turn created before now - SessionRetention,
// one bounded batch at a time, and returns how many it deleted.
func (s *Server) deleteOldTurns(ctx context.Context) (int, error) {
	cutoff := s.now().Add(-s.cfg.SessionRetention)
	total := 0
	for {
		n, err := s.store.DeleteSessionTurns(ctx, cutoff, s.sweepBatch)
		total += n
		s.metrics.turnsDeleted.Add(float64(n))
		if err != nil || n < s.sweepBatch {
			return total, err
		}
	}
}
