// TypeScript SDK of the Governance Gateway (fetch-based; Node 18+ and browsers).
// Idempotent failures (5xx, network) are retried once after 100 ms; a
// governance "block" is a result, not an error; any status >= 400 throws
// GatewayError with status, message and requestId.

export const ALLOW = "allow", REWRITE = "rewrite", REGENERATE = "regenerate", BLOCK = "block";
export const CHAT_TIMEOUT_MS = 30_000, EVENTS_TIMEOUT_MS = 5_000, RETRY_DELAY_MS = 100, MAX_BATCH = 500;

export class GatewayError extends Error {
  constructor(public status: number, message: string, public requestId = "", public body: unknown = undefined) {
    super(status ? `HTTP ${status}: ${message}` : message);
    this.name = "GatewayError";
  }
}

export interface Dimensions { useCase?: string; teamId?: string; integrationId?: string; endUserId?: string; sessionId?: string }

function dims(d: Dimensions = {}): Record<string, string> {
  const h: Record<string, string> = {};
  if (d.useCase) h["X-Use-Case"] = d.useCase;
  if (d.teamId) h["X-Team-Id"] = d.teamId;
  if (d.integrationId) h["X-Integration-Id"] = d.integrationId;
  if (d.endUserId) h["X-End-User-Id"] = d.endUserId;
  if (d.sessionId) h["X-Session-Id"] = d.sessionId;
  return h;
}

export interface Event { request_id: string; [field: string]: unknown }
export interface Rejection { index: number; request_id: string; error: string }
export interface BatchResult { accepted: number; skipped: number; rejected: Rejection[]; total: number }
export interface Reason { policy: string; severity: string; stage?: string }
export interface VerifyResult {
  request_id: string; answer: string; answer_changed: boolean; governance: string; mismatch_type: string;
  policy_hits: unknown[]; explanation: unknown; reasons?: Reason[]; risk_score?: number;
}
export interface ChatResult {
  request_id: string; governance: string; stage?: string; reasons: Reason[]; model: string;
  answer: string | null; usage: { prompt_tokens: number; completion_tokens: number };
}
export interface StreamDecision { action: string; stage?: string; reasons: Reason[]; request_id: string; answer_changed: boolean; answer?: string }
/** A text delta, or the final governance decision: when final.answer_changed, replace the rendered text with final.answer. */
export interface StreamEvent { delta: string; final?: StreamDecision }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function toError(res: Response): Promise<GatewayError> {
  let msg = res.statusText || "error", rid = res.headers.get("X-Service-Request-Id") ?? "", body: any;
  try {
    body = await res.json();
    if (typeof body?.error === "string") msg = body.error;
    else if (body?.error?.message) msg = body.error.message;
    if (body?.request_id) rid = body.request_id;
  } catch { /* not JSON */ }
  return new GatewayError(res.status, msg, rid, body);
}

export class Client {
  private base: string;
  constructor(baseUrl: string, private apiKey: string, private opts: { fetch?: typeof fetch; retryDelayMs?: number } = {}) {
    this.base = baseUrl.replace(/\/+$/, "");
  }

  private async request(path: string, body: unknown, timeoutMs: number, headers: Record<string, string> = {}): Promise<Response> {
    const f = this.opts.fetch ?? fetch;
    let last: GatewayError | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt) await sleep(this.opts.retryDelayMs ?? RETRY_DELAY_MS);
      let res: Response;
      try {
        res = await f(this.base + path, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-API-Key": this.apiKey, ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        last = new GatewayError(0, `cannot reach the gateway: ${(e as Error).message}`);
        continue;
      }
      if (res.status >= 500) { last = await toError(res); continue; }
      if (res.status >= 400) throw await toError(res);
      return res;
    }
    throw last!;
  }

  /** Posts 1 to 500 canonical events; a 207 returns its rejections. */
  async sendEvents(events: Event[]): Promise<BatchResult> {
    if (events.length < 1 || events.length > MAX_BATCH) throw new RangeError(`a batch holds 1 to ${MAX_BATCH} events`);
    return (await this.request("/v1/events", { events }, EVENTS_TIMEOUT_MS)).json() as Promise<BatchResult>;
  }

  exporter(opts: ExporterOptions = {}): Exporter { return new Exporter(this, opts); }

  async verify(req: { answer: string; prompt?: string; tool_result?: string; model?: string; provider?: string } & Dimensions): Promise<VerifyResult> {
    const { useCase, teamId, integrationId, endUserId, sessionId, ...body } = req;
    return (await this.request("/v1/verify", body, CHAT_TIMEOUT_MS, dims({ useCase, teamId, integrationId, endUserId, sessionId }))).json() as Promise<VerifyResult>;
  }

  async chat(req: { prompt?: string; messages?: { role: string; content: string }[]; [param: string]: unknown }): Promise<ChatResult> {
    return (await this.request("/v1/chat", req, CHAT_TIMEOUT_MS)).json() as Promise<ChatResult>;
  }

  /** Streams a Full Control answer: text deltas, then one final governance event. */
  async *chatStream(req: { prompt?: string; messages?: { role: string; content: string }[]; [param: string]: unknown }): AsyncGenerator<StreamEvent> {
    const res = await this.request("/v1/chat", { ...req, stream: true }, CHAT_TIMEOUT_MS);
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new GatewayError(502, "the stream ended without [DONE]");
      buf += dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line.startsWith("data:")) continue;
        const data = line.slice(5).trim();
        if (data === "[DONE]") return;
        let ev: any;
        try { ev = JSON.parse(data); } catch { continue; }
        if (ev.error) throw new GatewayError(502, ev.error.message ?? "stream failed", ev.request_id ?? "");
        if (ev.governance) { yield { delta: "", final: ev.governance }; continue; }
        const delta = ev.choices?.[0]?.delta?.content;
        if (delta) yield { delta };
      }
    }
  }

  /** Options for the official OpenAI client to go through the proxy: new OpenAI({ apiKey: upstreamKey, ...client.proxySettings("guard") }). */
  proxySettings(mode?: string, d: Dimensions = {}): { baseURL: string; defaultHeaders: Record<string, string> } {
    const h: Record<string, string> = { "X-Service-Api-Key": this.apiKey, ...dims(d) };
    if (mode) h["X-Service-Mode"] = mode;
    return { baseURL: this.base + "/v1", defaultHeaders: h };
  }
}

export interface ExporterOptions {
  batchSize?: number; flushIntervalMs?: number; queueSize?: number;
  onRejected?: (rejected: Rejection[], err?: GatewayError) => void;
}

/**
 * Background exporter: add() never blocks; batches of up to 500 every interval, on close(), and
 * when a Node process is about to exit with events still queued ("beforeExit": the event loop
 * drained, so the pending sends can still run; an explicit process.exit() skips it, call close()).
 */
export class Exporter {
  private queue: Event[] = [];
  private timer: ReturnType<typeof setInterval>;
  private sending: Promise<void> = Promise.resolve();
  private onExit = () => { if (this.queue.length) void this.flush(); };
  dropped = 0;
  constructor(private client: Client, private opts: ExporterOptions = {}) {
    this.timer = setInterval(() => void this.flush(), opts.flushIntervalMs ?? 1000);
    (this.timer as any).unref?.();
    (globalThis as any).process?.on?.("beforeExit", this.onExit);
  }
  add(e: Event): boolean {
    if (this.queue.length >= (this.opts.queueSize ?? 10_000)) { this.dropped++; return false; }
    this.queue.push(e);
    return true;
  }
  flush(): Promise<void> {
    this.sending = this.sending.then(async () => {
      const size = Math.min(Math.max(this.opts.batchSize ?? MAX_BATCH, 1), MAX_BATCH);
      while (this.queue.length) {
        const batch = this.queue.splice(0, size);
        try {
          const r = await this.client.sendEvents(batch);
          if (r.rejected?.length) this.opts.onRejected?.(r.rejected);
        } catch (e) {
          const ge = e as GatewayError;
          this.opts.onRejected?.((ge.body as any)?.rejected ?? [], ge);
        }
      }
    });
    return this.sending;
  }
  async close(): Promise<void> {
    clearInterval(this.timer);
    (globalThis as any).process?.off?.("beforeExit", this.onExit);
    await this.flush();
  }
}
