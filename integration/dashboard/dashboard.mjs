// End-to-end through the dashboard in headless Chromium: sign up, create an
// application, send events with its key, find them in the traces table,
// filter by metadata, replay a session, check billing against the tokens
// sent, and check that another organisation sees none of it. Writes a PNG
// of each page to SCREENSHOT_DIR. Env: GATEWAY_URL, SCREENSHOT_DIR.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

const url = process.env.GATEWAY_URL;
const shots = process.env.SCREENSHOT_DIR;
mkdirSync(shots, { recursive: true });
const fail = (m) => { console.error("FAIL:", m); process.exit(1); };
const check = (c, m) => { if (!c) fail(m); console.log("ok:", m); };

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
page.on("pageerror", (e) => fail("page error: " + e.message));
const shot = async (name) => { await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true }); };

await page.goto(url + "/");
const email = `ui-${Date.now()}@example.com`;
await page.fill("#signup-form [name=organization]", "UI Org");
await page.fill("#signup-form [name=email]", email);
await page.fill("#signup-form [name=password]", "correct horse battery");
await page.click("#signup-form button");
await page.waitForSelector("#apps:not([hidden])");
await page.fill("#app-form [name=name]", "web shop");
await page.click("#app-form button");
const key = (await page.textContent("#the-key", { timeout: 10000 })).trim();
check(key.startsWith("gwk_"), "the new API key is shown once");
await shot("applications");

// Send events with the key (1,000,000 tokens in total -> 30 USD at the Events price).
const events = [
  { request_id: "ui-1", model: "gpt-4o-mini", session_id: "chat-42", prompt: "Hi, I am Ada", answer: "Hello Ada", prompt_tokens: 300000, completion_tokens: 200000, metadata: { customer: "acme" }, started_at: "2026-01-01T10:00:00Z" },
  { request_id: "ui-2", model: "gpt-4o-mini", session_id: "chat-42", prompt: "Mail me at ada@example.com", answer: "Sure", prompt_tokens: 200000, completion_tokens: 100000, metadata: { customer: "acme" }, started_at: "2026-01-01T10:01:00Z" },
  { request_id: "ui-3", model: "gpt-4o", prompt: "Other", answer: "Thing", prompt_tokens: 100000, completion_tokens: 100000, metadata: { customer: "globex" } },
];
const res = await fetch(url + "/v1/events", { method: "POST", headers: { "Content-Type": "application/json", "X-API-Key": key }, body: JSON.stringify({ events }) });
check(res.status === 200, "events accepted");

await page.click("nav a[href='#traces']");
let rows = 0;
for (let i = 0; i < 100 && rows < 3; i++) {
  await page.click("#trace-filter button");
  await page.waitForTimeout(200);
  rows = await page.locator("#trace-table tbody tr").count();
}
check(rows === 3, "the three traces are in the table");
await shot("traces");

await page.fill("#trace-filter [name=metadata]", "customer=acme");
await page.click("#trace-filter button");
await page.waitForFunction(() => document.querySelectorAll("#trace-table tbody tr").length === 2);
check(true, "metadata filter customer=acme leaves two traces");
await page.selectOption("#trace-filter [name=mode]", "proxy");
await page.click("#trace-filter button");
await page.waitForFunction(() => document.querySelectorAll("#trace-table tbody tr").length === 0);
check(true, "mode filter proxy leaves none of the ingested traces");
await page.selectOption("#trace-filter [name=mode]", "ingest");
await page.click("#trace-filter button");
await page.waitForFunction(() => document.querySelectorAll("#trace-table tbody tr").length === 2);
check(true, "mode filter ingest with customer=acme shows the two again");
await page.click("[data-trace='ui-2']");
await page.waitForSelector("#trace-detail h2");
await shot("trace-detail");

await page.click("#trace-table [data-session='chat-42']");
await page.waitForSelector("#session-view h2");
check((await page.textContent("#session-view h2")).includes("2 turns"), "the session replays two turns");
await shot("session");

await page.click("nav a[href='#billing']");
await page.waitForSelector("#bill-usage");
const usage = (await page.textContent("#bill-usage")).trim();
check(usage === "30.000000", `billing usage is 30 USD for 1,000,000 Events tokens (got ${usage})`);
check((await page.textContent("#bill-balance")).trim() === "20.000000", "balance is 50 - 30");
check((await page.locator("#bill-app tbody tr").count()) === 1, "usage by application lists the one app that sent events");
await shot("billing");

await page.click("nav a[href='#overview']");
await page.waitForFunction(() => document.querySelector("#kpis").textContent.includes("Requests"));
const bars = await page.locator("#series rect.req").count();
check(bars === 24 || bars === 25, `the 24 h chart has one bar per hour, 25 when the window starts mid-hour (got ${bars})`);
const caption = await page.textContent("#series-caption");
check(caption.includes("(3 in the window)"), `the chart counts the three requests (got ${caption})`);
await shot("overview");

// A Full Control app: created Managed, switched to BYOK with a key, then back.
await page.click("nav a[href='#apps']");
await page.fill("#app-form [name=name]", "assistant");
await page.selectOption("#app-form [name=mode]", "full_control");
await page.selectOption("#app-form [name=provider_option]", "managed");
await page.fill("#app-form [name=provider]", "openai");
await page.fill("#app-form [name=model]", "gpt-4o-mini");
await page.click("#app-form button");
await page.waitForSelector("[data-switch][data-to=byok]");
await page.click("[data-switch][data-to=byok]");
await page.fill("#byok-form [name=llm_api_key]", "sk-user-own-key");
await page.click("#byok-form button");
await page.waitForSelector("[data-switch][data-to=managed]");
check((await page.textContent("#app-table")).includes("byok / openai / gpt-4o-mini"), "the app is BYOK after the switch");
check(!(await page.content()).includes("sk-user-own-key"), "the BYOK key is never shown again");
await shot("apps-byok");
await page.click("[data-switch][data-to=managed]");
await page.waitForSelector("[data-switch][data-to=byok]");
check((await page.textContent("#app-table")).includes("managed / openai / gpt-4o-mini"), "switched back to Managed");
check((await page.textContent("#org-mode")).includes("observe"), "the proxy default starts as the operator's observe");
await page.selectOption("#org-form [name=default_proxy_mode]", "guard");
await page.click("#org-form button");
await page.waitForFunction(() => document.querySelector("#org-mode").textContent.includes("guard"));
const orgMode = await (await fetch(process.env.GATEWAY_URL + "/api/console/org", { headers: { Authorization: "Bearer " + await page.evaluate(() => sessionStorage.getItem("gw_token")) } })).json();
check(orgMode.default_proxy_mode === "guard", "the organisation's proxy default is saved through the API");

// Another organisation sees none of it.
await page.click("#logout");
await page.fill("#signup-form [name=organization]", "Other Org");
await page.fill("#signup-form [name=email]", "other-" + email);
await page.fill("#signup-form [name=password]", "correct horse battery");
await page.click("#signup-form button");
await page.waitForSelector("#apps:not([hidden])");
await page.click("nav a[href='#traces']");
await page.click("#trace-filter button");
await page.waitForTimeout(500);
check((await page.locator("#trace-table tbody tr").count()) === 0, "another organisation sees no traces");
await shot("other-tenant");
await browser.close();
console.log("screenshots in " + shots);
