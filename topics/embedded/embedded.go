// Package embedded runs the log in-process for the one-binary mode: franz-go's
// kfake broker, persisted to a directory and reached by the very same clients
// that talk to a real Kafka cluster (DESIGN.md section 3): over TCP from other
// processes, in memory from its own (Broker.Dial).
package embedded

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/governance-gateway/gateway/topics"
)

// DefaultAddr is where the embedded broker listens unless told otherwise.
const DefaultAddr = "127.0.0.1:9092"

// Config configures the embedded broker. Zero fields take defaults.
type Config struct {
	// Dir holds the broker's data (segments, offsets, producer state). It
	// is created if missing and reloaded on Start. Required.
	Dir string
	// Addr is the listen address, host:port. The host is also what the
	// broker advertises in metadata, so it must be an address clients can
	// dial (not 0.0.0.0). "127.0.0.1:0" picks a free port (tests).
	// Default DefaultAddr.
	Addr string
	// Partitions of the traces topic when the data dir is new. Default
	// topics.DefaultPartitions.
	Partitions int32
	// Logger receives the broker's warnings and errors. Nil discards them.
	Logger *slog.Logger
	// FsyncInterval is how often the broker's files are fsynced in the
	// background. Every produce is written to the segment file (the page
	// cache) before it is acknowledged, so a crash of the process never
	// loses an acknowledged record; what the interval bounds is the loss on
	// a power cut or kernel panic, like Kafka's log.flush.interval.ms.
	// FsyncEveryBatch instead fsyncs each batch before its ack (kfake
	// SyncWrites): durable against power loss, but every produce then waits
	// for the disk (0.5 ms p50, 4 ms p99 here) in kfake's single request
	// loop. Default DefaultFsyncInterval.
	FsyncInterval time.Duration
}

// FsyncEveryBatch as Config.FsyncInterval fsyncs every batch before its ack.
const FsyncEveryBatch time.Duration = -1

// DefaultFsyncInterval bounds what a power cut can take from the embedded
// log: a tenth of a second of acknowledged records.
const DefaultFsyncInterval = 100 * time.Millisecond

// Defaults returns c with zero fields set to their defaults.
func (c Config) Defaults() Config {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.Partitions == 0 {
		c.Partitions = topics.DefaultPartitions
	}
	if c.FsyncInterval == 0 {
		c.FsyncInterval = DefaultFsyncInterval
	}
	return c
}

// Validate reports the first invalid field of c (after defaults).
func (c Config) Validate() error {
	c = c.Defaults()
	if c.Dir == "" {
		return errors.New("embedded broker config: Dir is required")
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("embedded broker config: Addr %q: %w", c.Addr, err)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("embedded broker config: Addr %q: the host is advertised to clients and must be dialable, not unspecified", c.Addr)
	}
	if c.Partitions < 1 {
		return fmt.Errorf("embedded broker config: Partitions %d must be at least 1", c.Partitions)
	}
	if c.FsyncInterval < 0 && c.FsyncInterval != FsyncEveryBatch {
		return fmt.Errorf("embedded broker config: FsyncInterval %v must be positive or FsyncEveryBatch", c.FsyncInterval)
	}
	return nil
}

// Broker is a running embedded broker.
type Broker struct {
	cluster *kfake.Cluster
	addrs   []string
	local   []string // addresses Dial serves in process: addrs and Config.Addr
	ln      *listener
	once    sync.Once
	flusher *flusher // nil with FsyncEveryBatch
}

// Start starts the broker on cfg.Addr over the data in cfg.Dir (reloading
// whatever a previous run left there) and returns once it accepts
// connections. The traces and dead-letter topics exist when it returns.
//
// Durability: kfake writes every produced batch to its segment file before
// the ack, and the gateway answers 2xx only after that ack, so a crash of the
// process after a 2xx loses nothing (the data is in the kernel's page cache).
// Against a power cut the files are fsynced every cfg.FsyncInterval, or
// before every ack with FsyncEveryBatch (docs/architecture.md).
func Start(cfg Config) (*Broker, error) {
	cfg = cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var ln *listener
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ClusterID("gateway-embedded"),
		kfake.DataDir(cfg.Dir),
		// kfake always asks to listen on 127.0.0.1:<port>; listen on the
		// configured address instead (which may name another host or
		// interface), and let the OS pick when the port is 0.
		kfake.Ports(0),
		kfake.ListenFn(func(network, _ string) (net.Listener, error) {
			tcp, err := net.Listen(network, cfg.Addr)
			if err != nil {
				return nil, err
			}
			ln = newListener(tcp)
			return ln, nil
		}),
		// Only applied to a new data dir; a reloaded one keeps its topics.
		kfake.SeedTopics(cfg.Partitions, topics.Traces),
		kfake.SeedTopics(topics.DeadLetterPartitions, topics.DeadLetter),
		kfake.DefaultNumPartitions(int(cfg.Partitions)),
	}
	if cfg.FsyncInterval == FsyncEveryBatch {
		opts = append(opts, kfake.SyncWrites())
	}
	if cfg.Logger != nil {
		opts = append(opts, kfake.WithLogger(kfakeLogger{cfg.Logger}))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start embedded broker in %s on %s: %w", cfg.Dir, cfg.Addr, err)
	}
	b := &Broker{cluster: c, addrs: c.ListenAddrs(), ln: ln}
	b.local = append(b.Addrs(), cfg.Addr)
	if cfg.FsyncInterval > 0 {
		logger := cfg.Logger
		if logger == nil {
			logger = slog.New(slog.DiscardHandler)
		}
		b.flusher = startFlusher(cfg.Dir, cfg.FsyncInterval, logger)
	}
	return b, nil
}

// Addrs are the broker's host:port addresses, for topics.Config.Brokers.
func (b *Broker) Addrs() []string { return append([]string(nil), b.addrs...) }

// Dial connects to address: in process, without a socket, when it is this
// running broker's, and over TCP otherwise (another broker, or whatever
// listens on the address once this one is closed). It is the dialer of the
// gateway's own clients of this broker (topics.Config.Dial): a record then
// reaches the broker and its ack comes back without a syscall.
func (b *Broker) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if slices.Contains(b.local, address) {
		c, err := b.ln.dialInproc(ctx)
		if !errors.Is(err, net.ErrClosed) {
			return c, err
		}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}

// Close stops the broker: it closes the listener and client connections,
// in-process ones included, and writes its state to disk. Acknowledged data
// was already durable. Idempotent.
func (b *Broker) Close() error {
	b.once.Do(func() {
		b.cluster.Close() // syncs and closes its files
		// kfake closes its connections too, but asynchronously, after
		// Close has returned; in-process ones end here.
		b.ln.closeInproc()
		if b.flusher != nil {
			b.flusher.stop()
		}
	})
	return nil
}

// flusher fsyncs the files kfake wrote since its last pass. fsync through a
// descriptor of our own flushes the inode's dirty pages whichever descriptor
// wrote them, so kfake's handles need not be shared.
type flusher struct {
	dir      string
	logger   *slog.Logger
	done     chan struct{}
	finished chan struct{}
	synced   map[string]fileState // as of its last fsync
}

// fileState tells whether a file changed: kfake only appends, or replaces a
// file by rename, and either changes the size or the modification time.
type fileState struct {
	size  int64
	mtime time.Time
}

func startFlusher(dir string, every time.Duration, logger *slog.Logger) *flusher {
	f := &flusher{dir: dir, logger: logger, done: make(chan struct{}), finished: make(chan struct{}), synced: map[string]fileState{}}
	go f.run(every)
	return f
}

func (f *flusher) run(every time.Duration) {
	defer close(f.finished)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-f.done:
			return
		case <-t.C:
			if err := f.syncChanged(); err != nil {
				f.logger.Warn("embedded broker: background fsync", "dir", f.dir, "err", err)
			}
		}
	}
}

func (f *flusher) stop() {
	close(f.done)
	<-f.finished
}

// syncChanged fsyncs every file and directory under f.dir that changed since
// its last fsync (directories too, so new segments' names survive). Files
// kfake removes meanwhile (segment deletion) are skipped and forgotten.
func (f *flusher) syncChanged() error {
	seen := make(map[string]bool, len(f.synced))
	var firstErr error
	err := filepath.WalkDir(f.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed since the directory was read
		}
		seen[path] = true
		st := fileState{size: info.Size(), mtime: info.ModTime()}
		if prev, ok := f.synced[path]; ok && prev == st {
			return nil
		}
		if err := syncPath(path); err != nil {
			if !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
				firstErr = err
			}
			return nil
		}
		f.synced[path] = st
		return nil
	})
	for path := range f.synced {
		if !seen[path] {
			delete(f.synced, path)
		}
	}
	if err == nil {
		err = firstErr
	}
	return err
}

func syncPath(path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	return fh.Close()
}

// kfakeLogger passes kfake's warnings and errors to slog; its Info level
// logs every request.
type kfakeLogger struct{ l *slog.Logger }

func (k kfakeLogger) Logf(level kfake.LogLevel, format string, args ...any) {
	var lvl slog.Level
	switch level {
	case kfake.LogLevelError:
		lvl = slog.LevelError
	case kfake.LogLevelWarn:
		lvl = slog.LevelWarn
	default:
		return
	}
	k.l.Log(context.Background(), lvl, "embedded broker: "+fmt.Sprintf(format, args...))
}
