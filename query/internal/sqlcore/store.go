package sqlcore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/governance-gateway/gateway/query"
)

// Store implements query.Store (all but Ping and Close) on a Backend.
type Store struct {
	b Backend
	d *Dialect

	// rowsPerInsert is how many traces one INSERT statement carries.
	rowsPerInsert int
	insertSQL     sync.Map // int (rows) -> string
	lookupSQL     sync.Map // int (rows) -> string
	kpiSQL        sync.Map // int (rows) -> kpi_hourly upsert
	existingSQL   string
	// insertArraysSQL inserts one array per column (Dialect.ArrayTypes).
	insertArraysSQL string
}

// arrayRowsPerInsert bounds the rows of one unnest INSERT: a whole chunk
// in one statement, without building unbounded messages.
const arrayRowsPerInsert = 10000

// DefaultRowsPerInsert is the largest multi-row INSERT: well under both
// engines' parameter limits; per-row cost is the same at 32, 64 or 200 rows
// a statement (BenchmarkWriteTraces), and 64 keeps the few statement texts
// stmtRows makes small.
const DefaultRowsPerInsert = 64

// stmtRows is how many of n remaining rows the next statement carries: max
// while at least max remain, then the largest power of two that fits. The
// statement texts thus come in a handful of sizes whatever the chunk sizes,
// and each engine's statement cache keeps all of them (one text per row
// count would outgrow it, and a statement not cached is parsed again on
// every use).
func stmtRows(n, max int) int {
	if n >= max {
		return max
	}
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}

// New returns a Store over b speaking d. rowsPerInsert <= 0 picks the default.
func New(b Backend, d *Dialect, rowsPerInsert int) *Store {
	if rowsPerInsert <= 0 {
		rowsPerInsert = DefaultRowsPerInsert
	}
	if d.MaxParams > 0 && rowsPerInsert*len(traceColumns) > d.MaxParams {
		rowsPerInsert = d.MaxParams / len(traceColumns)
	}
	s := &Store{b: b, d: d, rowsPerInsert: rowsPerInsert, existingSQL: d.Rebind(d.ExistingIDsSQL)}
	if d.ArrayTypes != nil {
		s.insertArraysSQL = insertArraysStmt(d)
	}
	return s
}

func (s *Store) conflict(err error, what string) error {
	if s.d.IsUniqueViolation(err) {
		return fmt.Errorf("%s: %w", what, query.ErrConflict)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// queryOne runs q and scans its first row with scan; no row is ErrNotFound.
func (s *Store) queryOne(ctx context.Context, qr Querier, what, q string, scan func(Rows) error, args ...any) error {
	rows, err := qr.Query(ctx, s.d.Rebind(q), args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return fmt.Errorf("%s: %w", what, query.ErrNotFound)
	}
	if err := scan(rows); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ---- organisations, users, console tokens ----

// CreateOrg implements query.Store.
func (s *Store) CreateOrg(ctx context.Context, org query.Org, user query.User) error {
	err := s.b.WriteTx(ctx, func(q Querier) error {
		if _, err := q.Exec(ctx, s.d.Rebind(`INSERT INTO orgs (id, name, credit_usd, created_at, default_proxy_mode) VALUES (?, ?, ?, ?, ?)`),
			org.ID, org.Name, org.CreditUSD, s.d.TimeArg(org.CreatedAt), org.DefaultProxyMode); err != nil {
			return s.conflict(err, "insert org")
		}
		if _, err := q.Exec(ctx, s.d.Rebind(`INSERT INTO users (id, org_id, email, password_hash, created_at) VALUES (?, ?, ?, ?, ?)`),
			user.ID, org.ID, user.Email, user.PasswordHash, s.d.TimeArg(user.CreatedAt)); err != nil {
			return s.conflict(err, "insert user")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("create org %s: %w", org.ID, err)
	}
	return nil
}

// Org implements query.Store.
func (s *Store) Org(ctx context.Context, orgID string) (query.Org, error) {
	var o query.Org
	err := s.queryOne(ctx, s.b.Reader(), "get org", `SELECT id, name, credit_usd, created_at, default_proxy_mode FROM orgs WHERE id = ?`,
		func(r Rows) error {
			var created NullTime
			err := r.Scan(&o.ID, &o.Name, &o.CreditUSD, &created, &o.DefaultProxyMode)
			o.CreatedAt = created.Time
			return err
		}, orgID)
	return o, err
}

// SetOrgDefaultProxyMode implements query.Store.
func (s *Store) SetOrgDefaultProxyMode(ctx context.Context, orgID, mode string) error {
	return s.updateOne(ctx, "set org default proxy mode", `UPDATE orgs SET default_proxy_mode = ? WHERE id = ?`, mode, orgID)
}

// UserByEmail implements query.Store.
func (s *Store) UserByEmail(ctx context.Context, email string) (query.User, error) {
	var u query.User
	err := s.queryOne(ctx, s.b.Reader(), "get user by email",
		`SELECT id, org_id, email, password_hash, created_at FROM users WHERE lower(email) = lower(?)`,
		func(r Rows) error {
			var created NullTime
			err := r.Scan(&u.ID, &u.OrgID, &u.Email, &u.PasswordHash, &created)
			u.CreatedAt = created.Time
			return err
		}, email)
	return u, err
}

// CreateConsoleToken implements query.Store.
func (s *Store) CreateConsoleToken(ctx context.Context, t query.ConsoleToken) error {
	err := s.b.WriteTx(ctx, func(q Querier) error {
		_, err := q.Exec(ctx, s.d.Rebind(`INSERT INTO console_tokens (hash, user_id, org_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)`),
			t.Hash, t.UserID, t.OrgID, s.d.TimeArg(t.ExpiresAt), s.d.TimeArg(t.CreatedAt))
		return err
	})
	if err != nil {
		return s.conflict(err, "create console token")
	}
	return nil
}

// ConsoleTokenByHash implements query.Store.
func (s *Store) ConsoleTokenByHash(ctx context.Context, hash []byte) (query.ConsoleToken, error) {
	var t query.ConsoleToken
	err := s.queryOne(ctx, s.b.Reader(), "get console token",
		`SELECT hash, user_id, org_id, expires_at, created_at FROM console_tokens WHERE hash = ?`,
		func(r Rows) error {
			var exp, created NullTime
			err := r.Scan(&t.Hash, &t.UserID, &t.OrgID, &exp, &created)
			t.ExpiresAt, t.CreatedAt = exp.Time, created.Time
			return err
		}, hash)
	return t, err
}

// ---- applications ----

const appColumns = `id, org_id, name, mode, provider_option, provider, model, key_hash, key_prefix, llm_key_cipher, created_at, deleted_at`

func scanApp(r Rows) (query.App, error) {
	var (
		a                query.App
		created, deleted NullTime
	)
	err := r.Scan(&a.ID, &a.OrgID, &a.Name, &a.Mode, &a.ProviderOption, &a.Provider, &a.Model,
		&a.KeyHash, &a.KeyPrefix, &a.LLMKeyCipher, &created, &deleted)
	a.CreatedAt, a.DeletedAt = created.Time, deleted.Ptr()
	if len(a.LLMKeyCipher) == 0 {
		a.LLMKeyCipher = nil
	}
	return a, err
}

// nilIfEmpty stores an absent blob as NULL so it reads back as nil.
func nilIfEmpty(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// CreateApp implements query.Store.
func (s *Store) CreateApp(ctx context.Context, a query.App) error {
	err := s.b.WriteTx(ctx, func(q Querier) error {
		var deleted any
		if a.DeletedAt != nil {
			deleted = s.d.TimeArg(*a.DeletedAt)
		}
		_, err := q.Exec(ctx, s.d.Rebind(`INSERT INTO apps (`+appColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			a.ID, a.OrgID, a.Name, a.Mode, a.ProviderOption, a.Provider, a.Model,
			a.KeyHash, a.KeyPrefix, nilIfEmpty(a.LLMKeyCipher), s.d.TimeArg(a.CreatedAt), deleted)
		return err
	})
	if err != nil {
		return s.conflict(err, "create app "+a.ID)
	}
	return nil
}

// Apps implements query.Store.
func (s *Store) Apps(ctx context.Context, orgID string) ([]query.App, error) {
	rows, err := s.b.Reader().Query(ctx, s.d.Rebind(`SELECT `+appColumns+` FROM apps
		WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at, id`), orgID)
	if err != nil {
		return nil, fmt.Errorf("list apps: %w", err)
	}
	defer rows.Close()
	apps := []query.App{}
	for rows.Next() {
		a, err := scanApp(rows)
		if err != nil {
			return nil, fmt.Errorf("list apps: %w", err)
		}
		apps = append(apps, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list apps: %w", err)
	}
	return apps, nil
}

// App implements query.Store.
func (s *Store) App(ctx context.Context, orgID, appID string) (query.App, error) {
	var a query.App
	err := s.queryOne(ctx, s.b.Reader(), "get app",
		`SELECT `+appColumns+` FROM apps WHERE org_id = ? AND id = ? AND deleted_at IS NULL`,
		func(r Rows) (err error) { a, err = scanApp(r); return err }, orgID, appID)
	return a, err
}

// AppByKeyHash implements query.Store.
func (s *Store) AppByKeyHash(ctx context.Context, hash []byte) (query.App, error) {
	var a query.App
	err := s.queryOne(ctx, s.b.Reader(), "get app by key",
		`SELECT `+appColumns+` FROM apps WHERE key_hash = ? AND deleted_at IS NULL`,
		func(r Rows) (err error) { a, err = scanApp(r); return err }, hash)
	return a, err
}

// UpdateApp implements query.Store.
func (s *Store) UpdateApp(ctx context.Context, a query.App) error {
	return s.updateOne(ctx, "update app "+a.ID,
		`UPDATE apps SET name = ?, provider_option = ?, provider = ?, model = ?, llm_key_cipher = ?
		WHERE org_id = ? AND id = ? AND deleted_at IS NULL`,
		a.Name, a.ProviderOption, a.Provider, a.Model, nilIfEmpty(a.LLMKeyCipher), a.OrgID, a.ID)
}

// DeleteApp implements query.Store.
func (s *Store) DeleteApp(ctx context.Context, orgID, appID string) error {
	var n int64
	err := s.b.WriteTx(ctx, func(q Querier) (err error) {
		n, err = q.Exec(ctx, s.d.Rebind(`UPDATE apps SET deleted_at = ? WHERE org_id = ? AND id = ? AND deleted_at IS NULL`),
			s.d.TimeArg(time.Now()), orgID, appID)
		if err != nil || n == 0 {
			return err
		}
		_, err = q.Exec(ctx, s.d.Rebind(`DELETE FROM session_turns WHERE org_id = ? AND app_id = ?`), orgID, appID)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete app %s: %w", appID, err)
	}
	if n == 0 {
		return fmt.Errorf("delete app %s: %w", appID, query.ErrNotFound)
	}
	return nil
}

// AppPolicy implements query.Store.
func (s *Store) AppPolicy(ctx context.Context, orgID, appID string) ([]byte, int64, error) {
	var doc *string
	var version int64
	err := s.queryOne(ctx, s.b.Reader(), "get app policy",
		`SELECT policy, policy_version FROM apps WHERE org_id = ? AND id = ? AND deleted_at IS NULL`,
		func(r Rows) error { return r.Scan(&doc, &version) }, orgID, appID)
	if err != nil {
		return nil, 0, err
	}
	if doc == nil {
		return nil, version, nil
	}
	return []byte(*doc), version, nil
}

// SetAppPolicy implements query.Store: one UPDATE ... RETURNING, so the
// version increment is atomic under concurrent edits.
func (s *Store) SetAppPolicy(ctx context.Context, orgID, appID string, doc []byte) (int64, error) {
	var arg any
	if doc != nil {
		arg = string(doc)
	}
	var version int64
	found := false
	err := s.b.WriteTx(ctx, func(q Querier) error {
		rows, err := q.Query(ctx, s.d.Rebind(`UPDATE apps SET policy = ?, policy_version = policy_version + 1
			WHERE org_id = ? AND id = ? AND deleted_at IS NULL RETURNING policy_version`), arg, orgID, appID)
		if err != nil {
			return err
		}
		defer rows.Close()
		if rows.Next() {
			found = true
			if err := rows.Scan(&version); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return 0, fmt.Errorf("set app policy: %w", err)
	}
	if !found {
		return 0, fmt.Errorf("set app policy: %w", query.ErrNotFound)
	}
	return version, nil
}

// updateOne runs an UPDATE that must touch exactly one live row.
func (s *Store) updateOne(ctx context.Context, what, q string, args ...any) error {
	var n int64
	err := s.b.WriteTx(ctx, func(qr Querier) (err error) {
		n, err = qr.Exec(ctx, s.d.Rebind(q), args...)
		return err
	})
	if err != nil {
		return s.conflict(err, what)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", what, query.ErrNotFound)
	}
	return nil
}

// ---- traces ----

// ExistingRequestIDs implements query.Store with one statement whose text
// does not depend on len(ids) (the id list is a single argument), so it is
// prepared once and reused; the primary key serves each id. Duplicate ids
// may return duplicate rows; the map absorbs them.
func (s *Store) ExistingRequestIDs(ctx context.Context, orgID string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool)
	// Ids that are not valid UTF-8 are never stored (Trace.Validate) and
	// could not be bound as text.
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if utf8.ValidString(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return out, nil
	}
	list, err := s.d.IDList(valid)
	if err != nil {
		return nil, fmt.Errorf("existing request ids: %w", err)
	}
	rows, err := s.b.Reader().Query(ctx, s.existingSQL, list, orgID)
	if err != nil {
		return nil, fmt.Errorf("existing request ids: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("existing request ids: %w", err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("existing request ids: %w", err)
	}
	return out, nil
}

type traceKey struct{ org, id string }

// before orders log positions: the earlier position is the one that claims
// an id when one call carries both.
func before(a, b *query.TraceRow) bool {
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.Offset < b.Offset
}

// WriteTraces implements query.Store. Only the earliest position of each
// (org, request_id) in rows is offered to the database; rows are inserted in
// multi-row statements, and only a statement that inserted fewer rows than
// it carried needs a look-up of the stored positions.
func (s *Store) WriteTraces(ctx context.Context, chunk query.Chunk, rows []query.TraceRow) ([]bool, error) {
	first := make(map[traceKey]int, len(rows))
	for i := range rows {
		k := traceKey{rows[i].OrgID, rows[i].Trace.RequestID}
		if j, ok := first[k]; !ok || before(&rows[i], &rows[j]) {
			first[k] = i
		}
	}
	cand := make([]int, 0, len(first))
	for i := range rows {
		if first[traceKey{rows[i].OrgID, rows[i].Trace.RequestID}] == i {
			cand = append(cand, i)
		}
	}

	owner := make([]bool, len(rows))
	err := s.b.WriteTx(ctx, func(q Querier) error {
		for i := range owner { // a retried transaction starts clean
			owner[i] = false
		}
		newChunk, err := q.Exec(ctx, s.d.Rebind(`INSERT INTO chunks (topic, log_partition, first_offset, last_offset)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`),
			chunk.Topic, chunk.Partition, chunk.FirstOffset, chunk.LastOffset)
		if err != nil {
			return fmt.Errorf("insert chunk: %w", err)
		}
		// Usage aggregates only for a chunk written for the first time: a
		// replay of a committed chunk owns the same rows again and must
		// not count them twice.
		arrays := s.d.ArrayTypes != nil
		var args []any
		if !arrays {
			args = make([]any, 0, min(s.rowsPerInsert, len(cand))*len(traceColumns))
		}
		for start := 0; start < len(cand); {
			k := stmtRows(len(cand)-start, s.rowsPerInsert)
			if arrays { // one statement text whatever the count
				k = min(len(cand)-start, arrayRowsPerInsert)
			}
			batch := cand[start : start+k]
			start += k
			var (
				n   int64
				err error
			)
			if arrays {
				if args, err = s.d.traceArrays(rows, batch); err != nil {
					return err
				}
				n, err = q.Exec(ctx, s.insertArraysSQL, args...)
			} else {
				args = args[:0]
				for _, i := range batch {
					if args, err = s.d.traceArgs(args, &rows[i]); err != nil {
						return err
					}
				}
				n, err = q.Exec(ctx, s.insertStmt(len(batch)), args...)
			}
			if err != nil {
				return fmt.Errorf("insert traces: %w", err)
			}
			if int(n) == len(batch) {
				for _, i := range batch {
					owner[i] = true
				}
				continue
			}
			for from := 0; from < len(batch); { // bounded statement sizes, as above
				m := stmtRows(len(batch)-from, s.rowsPerInsert)
				if err := s.markOwners(ctx, q, rows, batch[from:from+m], owner); err != nil {
					return err
				}
				from += m
			}
		}
		if newChunk == 1 {
			if err := s.addUsage(ctx, q, rows, owner); err != nil {
				return err
			}
			return s.addKPIs(ctx, q, rows, owner)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("write traces of chunk %s/%d@%d-%d: %w",
			chunk.Topic, chunk.Partition, chunk.FirstOffset, chunk.LastOffset, err)
	}
	return owner, nil
}

type usageKey struct{ org, app, day, mode string }

type usageSum struct{ requests, prompt, completion int64 }

// proxyPriceModes maps the proxy's service mode to the price mode
// (DESIGN.md 5: observe at the Events price, guard and verify at the
// Verify price, full at the Full Control price).
var proxyPriceModes = map[string]string{"observe": query.AppModeEvents, "guard": query.AppModeVerify,
	"verify": query.AppModeVerify, "full": query.AppModeFullControl}

// proxyPriceMode is the price mode of a proxy trace's metadata: its
// service_mode mapped by proxyPriceModes, "" when absent or unknown. The
// proxy writes exactly {"service_mode":"<mode>"}, read here without a JSON
// decoder; anything else (escapes, more members, other spacing) goes
// through encoding/json, with the same result.
func proxyPriceMode(meta []byte) string {
	const pre, suf = `{"service_mode":"`, `"}`
	if len(meta) > len(pre)+len(suf) && string(meta[:len(pre)]) == pre && string(meta[len(meta)-len(suf):]) == suf {
		if v := meta[len(pre) : len(meta)-len(suf)]; !bytes.ContainsAny(v, `"\`) {
			return proxyPriceModes[string(v)]
		}
	}
	var m struct {
		ServiceMode string `json:"service_mode"`
	}
	_ = json.Unmarshal(meta, &m)
	return proxyPriceModes[m.ServiceMode]
}

// regenerateUsage is the tokens of the LLM calls that regenerated a Verify
// answer (metadata.regenerate_usage, docs/api.md). They are billed at the
// Full Control price, as the gateway called the LLM, in a usage row of
// their own that counts no request: the request is Verify's.
func regenerateUsage(meta []byte) (prompt, completion int64) {
	if !bytes.Contains(meta, []byte(`"regenerate_usage"`)) {
		return 0, 0
	}
	var m struct {
		Usage struct {
			Prompt     int64 `json:"prompt_tokens"`
			Completion int64 `json:"completion_tokens"`
		} `json:"regenerate_usage"`
	}
	if json.Unmarshal(meta, &m) != nil || m.Usage.Prompt < 0 || m.Usage.Completion < 0 {
		return 0, 0
	}
	return m.Usage.Prompt, m.Usage.Completion
}

// addUsage adds the owned rows to usage_daily.
func (s *Store) addUsage(ctx context.Context, q Querier, rows []query.TraceRow, owner []bool) error {
	sums := map[usageKey]*usageSum{}
	appMode := map[[2]string]string{}
	var order []usageKey
	sum := func(k usageKey) *usageSum {
		u := sums[k]
		if u == nil {
			u = &usageSum{}
			sums[k] = u
			order = append(order, k)
		}
		return u
	}
	var (
		lastDay int64
		dayStr  string // the UTC date of lastDay: rows of a chunk share a day or two
	)
	for i := range rows {
		if !owner[i] {
			continue
		}
		r := &rows[i]
		mode := ""
		if r.Trace.Mode == "proxy" {
			mode = proxyPriceMode(r.Trace.Metadata)
		}
		if mode == "" {
			k := [2]string{r.OrgID, r.AppID}
			var ok bool
			if mode, ok = appMode[k]; !ok {
				res, err := q.Query(ctx, s.d.Rebind(`SELECT mode FROM apps WHERE org_id = ? AND id = ?`), r.OrgID, r.AppID)
				if err != nil {
					return fmt.Errorf("usage: app mode: %w", err)
				}
				if res.Next() {
					err = res.Scan(&mode)
				}
				res.Close()
				if err != nil {
					return fmt.Errorf("usage: app mode: %w", err)
				}
				if mode == "" {
					mode = query.AppModeEvents
				}
				appMode[k] = mode
			}
		}
		if d := floorDiv(r.Trace.ReceivedAt.Unix(), 86400); d != lastDay || dayStr == "" {
			lastDay, dayStr = d, r.Trace.ReceivedAt.UTC().Format("2006-01-02")
		}
		key := usageKey{r.OrgID, r.AppID, dayStr, mode}
		u := sum(key)
		u.requests++
		u.prompt += r.Trace.PromptTokens
		u.completion += r.Trace.CompletionTokens
		if mode == query.AppModeVerify {
			if p, c := regenerateUsage(r.Trace.Metadata); p+c > 0 {
				key.mode = query.AppModeFullControl
				u := sum(key)
				u.prompt += p
				u.completion += c
			}
		}
	}
	for _, k := range order {
		u := sums[k]
		if _, err := q.Exec(ctx, s.d.Rebind(`INSERT INTO usage_daily (org_id, app_id, day, price_mode, requests, prompt_tokens, completion_tokens)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (org_id, app_id, day, price_mode) DO UPDATE SET
				requests = usage_daily.requests + excluded.requests,
				prompt_tokens = usage_daily.prompt_tokens + excluded.prompt_tokens,
				completion_tokens = usage_daily.completion_tokens + excluded.completion_tokens`),
			k.org, k.app, k.day, k.mode, u.requests, u.prompt, u.completion); err != nil {
			return fmt.Errorf("usage: upsert: %w", err)
		}
	}
	return nil
}

// Usage implements query.Store.
func (s *Store) Usage(ctx context.Context, orgID, fromDay, toDay string) ([]query.UsageRow, error) {
	res, err := s.b.Reader().Query(ctx, s.d.Rebind(`SELECT app_id, day, price_mode, requests, prompt_tokens, completion_tokens
		FROM usage_daily WHERE org_id = ? AND day >= ? AND day <= ? ORDER BY day, app_id, price_mode`), orgID, fromDay, toDay)
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	defer res.Close()
	out := []query.UsageRow{}
	for res.Next() {
		var u query.UsageRow
		if err := res.Scan(&u.AppID, &u.Day, &u.PriceMode, &u.Requests, &u.PromptTokens, &u.CompletionTokens); err != nil {
			return nil, fmt.Errorf("usage: %w", err)
		}
		out = append(out, u)
	}
	return out, res.Err()
}

// kpisFromTraces computes the KPIs of a window from its traces alone: one
// aggregate, two group-bys and two exact percentile probes, all on the
// (org_id, received_at) index range.
func (s *Store) kpisFromTraces(ctx context.Context, orgID string, since, until time.Time, bucket time.Duration) (query.KPIs, error) {
	k := query.KPIs{ByDecision: map[string]int64{}, ByMode: map[string]int64{}}
	args := []any{orgID, s.d.TimeArg(since), s.d.TimeArg(until)}
	const where = ` FROM traces WHERE org_id = ? AND received_at >= ? AND received_at < ?`
	r := s.b.Reader()
	var withLatency int64
	err := s.queryOne(ctx, r, "kpis", `SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0),
		COALESCE(SUM(cost_usd), 0), COUNT(latency_ms)`+where,
		func(rows Rows) error {
			return rows.Scan(&k.Requests, &k.PromptTokens, &k.CompletionTokens, &k.CostUSD, &withLatency)
		}, args...)
	if err != nil {
		return k, err
	}
	if withLatency > 0 {
		if err := s.exactPercentiles(ctx, &k, where, args, withLatency); err != nil {
			return k, err
		}
	}
	for col, m := range map[string]map[string]int64{"final_decision": k.ByDecision, "mode": k.ByMode} {
		rows, err := r.Query(ctx, s.d.Rebind(`SELECT `+col+`, COUNT(*)`+where+` GROUP BY `+col), args...)
		if err != nil {
			return k, fmt.Errorf("kpis by %s: %w", col, err)
		}
		for rows.Next() {
			var key string
			var n int64
			if err := rows.Scan(&key, &n); err != nil {
				rows.Close()
				return k, fmt.Errorf("kpis by %s: %w", col, err)
			}
			if key != "" || col != "final_decision" { // no decision: not counted (query.KPIs)
				m[key] = n
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return k, fmt.Errorf("kpis by %s: %w", col, err)
		}
	}
	if bucket > 0 {
		if k.Series, err = s.kpiSeries(ctx, where, args, since, until, bucket); err != nil {
			return k, err
		}
	}
	return k, nil
}

// exactPercentiles sets the latency p50 and p95 of the window (where,
// args) holding withLatency latencies: the values at ranks n/2 and n*95/100
// (0-based), each one probe of the window's index range.
func (s *Store) exactPercentiles(ctx context.Context, k *query.KPIs, where string, args []any, withLatency int64) error {
	k.LatencyP50Ms, k.LatencyP95Ms = new(int64), new(int64)
	*k.LatencyP50Ms = withLatency / 2
	*k.LatencyP95Ms = withLatency * 95 / 100
	for _, p := range []*int64{k.LatencyP50Ms, k.LatencyP95Ms} {
		if err := s.queryOne(ctx, s.b.Reader(), "kpis latency", `SELECT latency_ms`+where+` AND latency_ms IS NOT NULL ORDER BY latency_ms LIMIT 1 OFFSET ?`,
			func(rows Rows) error { return rows.Scan(p) }, append(args[:len(args):len(args)], *p)...); err != nil {
			return err
		}
	}
	return nil
}

// emptySeries returns the zero buckets of bucket-wide (secs) points covering
// [since, until), epoch-aligned, and the bucket index of the first.
func emptySeries(since, until time.Time, secs int64) ([]query.KPIBucket, int64, error) {
	first, last := floorDiv(since.Unix(), secs), floorDiv(until.Add(-time.Microsecond).Unix(), secs)
	if last-first >= query.MaxSeriesPoints { // the caller validates; this guards the allocation
		return nil, 0, fmt.Errorf("kpi series: %d points, more than %d", last-first+1, query.MaxSeriesPoints)
	}
	out := make([]query.KPIBucket, last-first+1)
	for i := range out {
		out[i].Start = time.Unix((first+int64(i))*secs, 0).UTC()
	}
	return out, first, nil
}

// kpiSeries groups the window by epoch-aligned buckets of at least one
// second; the buckets without traces are filled with zeros.
func (s *Store) kpiSeries(ctx context.Context, where string, args []any, since, until time.Time, bucket time.Duration) ([]query.KPIBucket, error) {
	secs := max(int64(bucket/time.Second), 1)
	out, first, err := emptySeries(since, until, secs)
	if err != nil {
		return nil, err
	}
	b := s.d.EpochBucket("received_at", secs)
	rows, err := s.b.Reader().Query(ctx, s.d.Rebind(`SELECT `+b+`, COUNT(*), COALESCE(SUM(prompt_tokens + completion_tokens), 0),
		SUM(CASE WHEN status = 'blocked' THEN 1 ELSE 0 END),
		SUM(CASE WHEN status IN ('rewritten', 'regenerated') THEN 1 ELSE 0 END),
		SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END)`+where+` GROUP BY 1`), args...)
	if err != nil {
		return nil, fmt.Errorf("kpi series: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var idx int64
		var p query.KPIBucket
		if err := rows.Scan(&idx, &p.Requests, &p.Tokens, &p.Blocked, &p.Rewritten, &p.Errors); err != nil {
			return nil, fmt.Errorf("kpi series: %w", err)
		}
		if i := idx - first; i >= 0 && i < int64(len(out)) {
			p.Start = out[i].Start
			out[i] = p
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("kpi series: %w", err)
	}
	return out, nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// markOwners sets owner[i] for the rows of batch whose position is the stored one.
func (s *Store) markOwners(ctx context.Context, q Querier, rows []query.TraceRow, batch []int, owner []bool) error {
	args := make([]any, 0, 2*len(batch))
	pos := make(map[traceKey]int, len(batch))
	for _, i := range batch {
		args = append(args, rows[i].OrgID, rows[i].Trace.RequestID)
		pos[traceKey{rows[i].OrgID, rows[i].Trace.RequestID}] = i
	}
	res, err := q.Query(ctx, s.lookupStmt(len(batch)), args...)
	if err != nil {
		return fmt.Errorf("look up trace owners: %w", err)
	}
	defer res.Close()
	for res.Next() {
		var (
			k         traceKey
			partition int32
			offset    int64
		)
		if err := res.Scan(&k.org, &k.id, &partition, &offset); err != nil {
			return fmt.Errorf("look up trace owners: %w", err)
		}
		if i, ok := pos[k]; ok && rows[i].Partition == partition && rows[i].Offset == offset {
			owner[i] = true
		}
	}
	if err := res.Err(); err != nil {
		return fmt.Errorf("look up trace owners: %w", err)
	}
	return nil
}

// writeValues writes a VALUES list of rows rows of cols placeholders each,
// numbered in order in the dialect's style: "(?, ?), (?, ?)".
func (s *Store) writeValues(b *strings.Builder, rows, cols int) {
	p := 0
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := 0; c < cols; c++ {
			if c > 0 {
				b.WriteString(", ")
			}
			p++
			b.WriteString(s.d.placeholder(p))
		}
		b.WriteByte(')')
	}
}

func (s *Store) insertStmt(n int) string {
	if v, ok := s.insertSQL.Load(n); ok {
		return v.(string)
	}
	var b strings.Builder
	b.WriteString("INSERT INTO traces (" + traceSelectList + ") VALUES ")
	s.writeValues(&b, n, len(traceColumns))
	b.WriteString(" ON CONFLICT (org_id, request_id) DO NOTHING")
	s.insertSQL.Store(n, b.String())
	return b.String()
}

// insertArraysStmt is "INSERT ... SELECT ... FROM unnest($1::t1[], ...)".
func insertArraysStmt(d *Dialect) string {
	sel := make([]string, len(traceColumns))
	arrays := make([]string, len(traceColumns))
	for i, c := range traceColumns {
		typ := d.ArrayTypes[c]
		sel[i] = c
		if typ == "jsonb" {
			sel[i], typ = c+"::jsonb", "text"
		}
		arrays[i] = d.placeholder(i+1) + "::" + typ + "[]"
	}
	return "INSERT INTO traces (" + traceSelectList + ") SELECT " + strings.Join(sel, ", ") +
		" FROM unnest(" + strings.Join(arrays, ", ") + ") AS u(" + traceSelectList +
		") ON CONFLICT (org_id, request_id) DO NOTHING"
}

func (s *Store) lookupStmt(n int) string {
	if v, ok := s.lookupSQL.Load(n); ok {
		return v.(string)
	}
	var b strings.Builder
	b.WriteString("SELECT org_id, request_id, log_partition, log_offset FROM traces WHERE (org_id, request_id) IN (VALUES ")
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + s.d.placeholder(2*r+1) + ", " + s.d.placeholder(2*r+2) + ")")
	}
	b.WriteString(")")
	s.lookupSQL.Store(n, b.String())
	return b.String()
}

func (d *Dialect) placeholder(n int) string {
	if d.Dollar {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// Chunks implements query.Store.
func (s *Store) Chunks(ctx context.Context, topic string, partition int32, from int64) ([]query.Chunk, error) {
	rows, err := s.b.Reader().Query(ctx, s.d.Rebind(`SELECT topic, log_partition, first_offset, last_offset FROM chunks
		WHERE topic = ? AND log_partition = ? AND last_offset >= ? ORDER BY first_offset`), topic, partition, from)
	if err != nil {
		return nil, fmt.Errorf("list chunks: %w", err)
	}
	defer rows.Close()
	out := []query.Chunk{}
	for rows.Next() {
		var c query.Chunk
		if err := rows.Scan(&c.Topic, &c.Partition, &c.FirstOffset, &c.LastOffset); err != nil {
			return nil, fmt.Errorf("list chunks: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list chunks: %w", err)
	}
	return out, nil
}

// Default and maximum page sizes of ListTraces (DESIGN.md section 6).
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// ListTraces implements query.Store with keyset pagination on
// (received_at DESC, request_id DESC), never OFFSET.
func (s *Store) ListTraces(ctx context.Context, orgID string, f query.TraceFilter) ([]query.TraceRow, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)

	var (
		where strings.Builder
		args  = []any{orgID}
	)
	where.WriteString("org_id = ?")
	eq := func(col, v string) {
		if v != "" {
			where.WriteString(" AND " + col + " = ?")
			args = append(args, v)
		}
	}
	eq("app_id", f.AppID)
	eq("status", f.Status)
	eq("final_decision", f.FinalDecision)
	eq("model", f.Model)
	eq("use_case", f.UseCase)
	eq("mode", f.Mode)
	eq("session_id", f.SessionID)
	if f.SessionID != "" { // lets the planner use the partial session index
		where.WriteString(" AND session_id <> ''")
	}
	if f.Since != nil {
		where.WriteString(" AND received_at >= ?")
		args = append(args, s.d.TimeArg(*f.Since))
	}
	if f.Until != nil {
		where.WriteString(" AND received_at < ?")
		args = append(args, s.d.TimeArg(*f.Until))
	}
	keys := make([]string, 0, len(f.Metadata))
	for k := range f.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a stable statement text per filter set
	for _, k := range keys {
		pred, pargs := s.d.MetadataMatch(k, f.Metadata[k])
		where.WriteString(" AND " + pred)
		args = append(args, pargs...)
	}
	if f.Cursor != "" {
		c, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		where.WriteString(" AND (received_at, request_id) < (?, ?)")
		args = append(args, s.d.TimeArg(c.receivedAt), c.requestID)
	}
	args = append(args, limit+1)
	q := `SELECT ` + traceSelectList + ` FROM traces WHERE ` + where.String() +
		` ORDER BY received_at DESC, request_id DESC LIMIT ?`

	out, err := s.queryTraces(ctx, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list traces: %w", err)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = cursor{receivedAt: last.Trace.ReceivedAt, requestID: last.Trace.RequestID}.encode()
	}
	return out, next, nil
}

func (s *Store) queryTraces(ctx context.Context, q string, args ...any) ([]query.TraceRow, error) {
	rows, err := s.b.Reader().Query(ctx, s.d.Rebind(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []query.TraceRow{}
	for rows.Next() {
		r, err := scanTrace(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Trace implements query.Store.
func (s *Store) Trace(ctx context.Context, orgID, requestID string) (query.TraceRow, error) {
	var t query.TraceRow
	err := s.queryOne(ctx, s.b.Reader(), "get trace",
		`SELECT `+traceSelectList+` FROM traces WHERE org_id = ? AND request_id = ?`,
		func(r Rows) (err error) { t, err = scanTrace(r); return err }, orgID, requestID)
	return t, err
}

// SessionTraces implements query.Store.
func (s *Store) SessionTraces(ctx context.Context, orgID, sessionID string) ([]query.TraceRow, error) {
	if sessionID == "" { // traces without a session are not one session
		return nil, fmt.Errorf("session traces: %w", query.ErrNotFound)
	}
	out, err := s.queryTraces(ctx, `SELECT `+traceSelectList+` FROM traces
		WHERE org_id = ? AND session_id = ? AND session_id <> '' ORDER BY started_at, received_at, request_id`, orgID, sessionID)
	if err != nil {
		return nil, fmt.Errorf("session traces: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("session traces: %w", query.ErrNotFound)
	}
	return out, nil
}

// AddSessionTurn implements query.Store.
func (s *Store) AddSessionTurn(ctx context.Context, t query.SessionTurn) error {
	err := s.b.WriteTx(ctx, func(q Querier) error {
		_, err := q.Exec(ctx, s.d.Rebind(`INSERT INTO session_turns (org_id, app_id, session_id, request_id, created_at, messages)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (org_id, request_id) DO NOTHING`),
			t.OrgID, t.AppID, t.SessionID, t.RequestID, s.d.TimeArg(t.CreatedAt), string(t.Messages))
		return err
	})
	if err != nil {
		return fmt.Errorf("add session turn %s: %w", t.RequestID, err)
	}
	return nil
}

// SessionTurns implements query.Store: the newest limit rows by the
// (org_id, app_id, session_id, created_at, request_id) index, reversed.
func (s *Store) SessionTurns(ctx context.Context, orgID, appID, sessionID string, limit int) ([]query.SessionTurn, error) {
	if limit < 1 {
		return nil, fmt.Errorf("session turns: limit must be at least 1, got %d", limit)
	}
	rows, err := s.b.Reader().Query(ctx, s.d.Rebind(`SELECT request_id, created_at, messages FROM session_turns
		WHERE org_id = ? AND app_id = ? AND session_id = ? ORDER BY created_at DESC, request_id DESC LIMIT ?`),
		orgID, appID, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("read session turns: %w", err)
	}
	defer rows.Close()
	var out []query.SessionTurn
	for rows.Next() {
		t := query.SessionTurn{OrgID: orgID, AppID: appID, SessionID: sessionID}
		var created NullTime
		var msgs string
		if err := rows.Scan(&t.RequestID, &created, &msgs); err != nil {
			return nil, fmt.Errorf("read session turns: %w", err)
		}
		t.CreatedAt, t.Messages = created.Time, []byte(msgs)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read session turns: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}

// DeleteSessionTurns implements query.Store: the oldest limit rows by the
// created_at index, deleted by primary key in one statement.
func (s *Store) DeleteSessionTurns(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit < 1 {
		return 0, fmt.Errorf("delete session turns: limit must be at least 1, got %d", limit)
	}
	var n int64
	err := s.b.WriteTx(ctx, func(q Querier) (err error) {
		n, err = q.Exec(ctx, s.d.Rebind(`DELETE FROM session_turns WHERE (org_id, request_id) IN (
			SELECT org_id, request_id FROM session_turns WHERE created_at < ? ORDER BY created_at LIMIT ?)`),
			s.d.TimeArg(before), limit)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete session turns: %w", err)
	}
	return int(n), nil
}
