/**
 * The admins' web dashboard, on Discord and on Slack: `/lesson dashboard` (real discord.js / real Bolt over
 * their fakes) issues the sign-in link, and the pages are opened in the real Chromium (puppeteer-core), signed
 * in through that link. A community is seeded with ended lessons (session records as the engine stores them,
 * recorded by the learning service as at each lesson's end), and the test checks: the stuck view's numbers
 * equal those computed here from the transcripts with core's readers; learner and model text carrying
 * `<script>` and `"><img onerror>` shows as text; a link used twice, an expired link and another community's
 * pages are refused; the session cookie is HttpOnly and SameSite; axe-core finds no serious or critical
 * violation; and screenshots at desktop and phone width are written to test-output/dashboard/ (printed).
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MockLanguageModelV3 } from "ai/test";
import puppeteer, { type Browser, type Page } from "puppeteer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../../../src/adapters/discord/index.ts";
import { createMemoryStateStore, type SessionRecord } from "../../../src/agent/index.ts";
import { lessonParticipants, memberMessages } from "../../../src/agent/profile/lesson-facts.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { derivePlanMastery } from "../../../src/core/mastery.ts";
import { latestPlanTree } from "../../../src/core/transcript.ts";
import { createDashboard, type Dashboard } from "../../../src/dashboard/index.ts";
import { seededLessons } from "../../../testkit/dashboard-lessons.ts";
import { startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../../testkit/model-stream.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { type LearnerBackend, openLearnerBackend, testClock } from "../../fixtures/profile-stack.ts";
import { startAdapter } from "../slack/harness.ts";

const SCRIPT = "<script>window.__pwned = 1</script>";
const IMG = '"><img src=x onerror="window.__pwned = 2">';
const OUT = resolve("test-output", "dashboard");
const CHROMIUM = process.env.LEARNHARNESS_CHROMIUM_PATH ?? process.env.PUPPETEER_EXECUTABLE_PATH ?? "/usr/bin/chromium";
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One platform with the dashboard: who is admin, and `/lesson dashboard` as a person. */
interface Stack {
	platform: "discord" | "slack";
	community: string;
	admin: string;
	member: string;
	backend: LearnerBackend;
	dashboard: Dashboard;
	/** The reply to `/lesson dashboard`, as the person saw it (privately). */
	command(who: string): Promise<{ text: string; privateTo: string | undefined }>;
	close(): Promise<void>;
}

/** Minutes the dashboard's clock runs ahead of the real one (an expired link without waiting). */
let ahead = 0;
const dashboardNow = () => new Date(Date.now() + ahead * 60_000);
const model = () => new MockLanguageModelV3({ doStream: (options) => scriptedModel([]).doStream(options) });

async function withDashboard(dir: string): Promise<{ backend: LearnerBackend; dashboard: Dashboard }> {
	const backend = await openLearnerBackend(dir, model(), testClock());
	const dashboard = createDashboard({
		secret: "a test secret that is long enough for the links",
		host: "127.0.0.1",
		port: 0,
		state: createMemoryStateStore(),
		learning: backend.learning,
		records: backend.sessions,
		logger: silentLogger,
		now: dashboardNow,
	});
	await dashboard.listen();
	return { backend, dashboard };
}

async function onDiscord(): Promise<Stack> {
	const dir = mkdtempSync(join(tmpdir(), "lh-dashboard-d-"));
	const fake = await startFakeDiscord();
	const { backend, dashboard } = await withDashboard(dir);
	const adapter: DiscordAdapter = createDiscordAdapter({
		tutor: backend.tutor,
		renderer: stubRenderer(undefined),
		logger: silentLogger,
		state: createMemoryStateStore(),
		learning: { learning: backend.learning, dashboard },
		config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
	});
	await adapter.start();
	const users = { [fake.users.admin.id]: fake.users.admin, [fake.users.learner.id]: fake.users.learner };
	return {
		platform: "discord",
		community: fake.guild.id,
		admin: fake.users.admin.id,
		member: fake.users.learner.id,
		backend,
		dashboard,
		async command(who) {
			const user = users[who] ?? fake.users.other;
			const it = fake.slash({ user, channelId: fake.ids.general, subcommand: "dashboard" });
			const id = await fake.waitFor(() => it.originalMessageId, "the reply to /lesson dashboard");
			const m = await fake.waitFor(() => {
				const got = fake.messages.get(id);
				return got && got.text !== "" ? got : undefined;
			}, "its text");
			return { text: m.text, privateTo: m.visibleTo };
		},
		async close() {
			await adapter.stop();
			await dashboard.close();
			await backend.close();
			await fake.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

async function onSlack(): Promise<Stack> {
	const dir = mkdtempSync(join(tmpdir(), "lh-dashboard-s-"));
	const fake = await startFakeSlack({
		users: [
			{ id: "U1", name: "ada" },
			{ id: "UADMIN", name: "root", is_admin: true },
		],
	});
	const { backend, dashboard } = await withDashboard(dir);
	const running = await startAdapter(fake, {
		tutor: backend.tutor,
		renderer: stubRenderer(undefined),
		state: createMemoryStateStore(),
		learning: { learning: backend.learning, dashboard },
	});
	return {
		platform: "slack",
		community: fake.teamId,
		admin: "UADMIN",
		member: "U1",
		backend,
		dashboard,
		async command(who) {
			const before = fake.calls.length;
			await running.sender.command("/lesson", "dashboard", { user: who, name: who, channel: "C1" });
			const got = await fake.waitFor(
				() =>
					fake.calls
						.slice(before)
						.find((c) => c.method === "response_url" || (c.method === "chat.postEphemeral" && c.params.user === who)),
				"the reply to /lesson dashboard",
			);
			const isPrivate = got.method === "chat.postEphemeral" || got.params.response_type === "ephemeral";
			return { text: String(got.params.text ?? ""), privateTo: isPrivate ? who : undefined };
		},
		async close() {
			await running.adapter.stop();
			await dashboard.close();
			await backend.close();
			await fake.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** Per topic and node title (compared as the page does), each learner's status in their latest lesson with it. */
function statusFromTranscripts(records: readonly SessionRecord[]) {
	const key = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();
	const by = new Map<string, Map<string, Map<string, string>>>();
	for (const record of [...records].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))) {
		const people = record.mode === "group" ? lessonParticipants(record) : [record.learner];
		for (const person of people) {
			const messages = record.mode === "group" ? memberMessages(record.messages, person.id) : record.messages;
			const tree = latestPlanTree(messages);
			if (!tree) continue;
			const mastery = derivePlanMastery(tree, messages);
			const topic = by.get(key(record.topic)) ?? new Map<string, Map<string, string>>();
			by.set(key(record.topic), topic);
			for (const node of tree.nodes) {
				const learners = topic.get(key(node.title)) ?? new Map<string, string>();
				topic.set(key(node.title), learners);
				learners.set(person.id, mastery[node.id] ?? "not-yet");
			}
		}
	}
	return by;
}

/** Per topic and node title, how many learners have it learned, shaky and not yet. */
function stuckFromTranscripts(records: readonly SessionRecord[]) {
	const by = statusFromTranscripts(records);
	const out: Record<string, Record<string, { learners: number; learned: number; shaky: number; notyet: number }>> = {};
	for (const [topic, nodes] of by) {
		out[topic] = {};
		for (const [node, learners] of nodes) {
			const s = [...learners.values()];
			out[topic][node] = {
				learners: s.length,
				learned: s.filter((m) => m === "learned").length,
				shaky: s.filter((m) => m === "shaky").length,
				notyet: s.filter((m) => m === "not-yet").length,
			};
		}
	}
	return out;
}

const linkIn = (text: string): string => {
	const url = /https?:\/\/[^\s>|]+/.exec(text)?.[0];
	if (!url) throw new Error(`no link in ${text}`);
	return url;
};

let browser: Browser;
beforeAll(async () => {
	browser = await puppeteer.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
	});
	mkdirSync(OUT, { recursive: true });
	console.log(`dashboard screenshots: ${OUT}`);
}, 60_000);
afterAll(async () => {
	await browser?.close();
});

describe.each([
	["discord", onDiscord],
	["slack", onSlack],
] as const)("the dashboard on %s", { timeout: 90_000 }, (name, open) => {
	let stack: Stack;
	let records: SessionRecord[];
	let page: Page;
	let base: string;
	const members = [
		{ id: "1100000000000000001", name: "Ada" },
		{ id: "1100000000000000002", name: `Bo ${SCRIPT}` },
		{ id: "1100000000000000003", name: "Cy" },
		{ id: "1100000000000000004", name: "Dee" },
	];

	beforeAll(async () => {
		stack = await open();
		records = seededLessons({
			platform: name,
			community: stack.community,
			lessons: 24,
			members,
			topics: [
				{ topic: "Fractions", nodes: ["Equal parts", "Common denominators", `Adding ${IMG}`] },
				{ topic: "binary search", nodes: ["Sorted input", "Halving", "Off-by-one"] },
			],
			end: new Date(Date.now() - 3_600_000),
			groupEvery: 5,
			payload: {
				learner: `my answer ${SCRIPT} ${IMG}`,
				tutor: `Tutor says ${IMG} ${SCRIPT}`,
				question: `Which ${SCRIPT}?`,
			},
		});
		// Another community's lesson (its page must stay closed).
		const elsewhere = seededLessons({
			platform: name,
			community: `${stack.community}9`,
			lessons: 1,
			members,
			topics: [{ topic: "secret topic", nodes: ["hidden node"] }],
			end: new Date(),
			seed: 7,
		});
		for (const record of [...records, ...elsewhere]) {
			await stack.backend.sessions.set(record);
			await stack.backend.learning.recordLesson(record);
		}
		page = await browser.newPage();
	}, 90_000);
	afterAll(async () => {
		await page?.close();
		await stack?.close();
	});

	it("refuses members and gives an admin a private one-time link", async () => {
		const refused = await stack.command(stack.member);
		expect(refused.text).toMatch(/^Only admins/);
		const reply = await stack.command(stack.admin);
		expect(reply.privateTo).toBe(stack.admin);
		expect(reply.text).toMatch(/works once, for 10 minutes/);
		expect(linkIn(reply.text).startsWith(`${stack.dashboard.url()}/signin?t=`)).toBe(true);
	});

	it("signs in through the link, with an HttpOnly, SameSite session cookie and a strict CSP", async () => {
		const link = linkIn((await stack.command(stack.admin)).text);
		const response = await page.goto(link);
		expect(response?.status()).toBe(200);
		expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
		await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
		base = new URL(page.url()).pathname;
		expect(base).toBe(`/c/${name}/${stack.community}/`);
		expect(await page.$eval("h1", (h) => h.textContent)).toBe("Overview");
		const [cookie] = await page.cookies();
		expect(cookie?.httpOnly).toBe(true);
		expect(cookie?.sameSite).toBe("Strict");
		// Used once: the same link is refused, on the page and when posted again.
		expect((await page.goto(link))?.status()).toBe(403);
		const again = await fetch(`${stack.dashboard.url()}/signin`, {
			method: "POST",
			headers: { "content-type": "application/x-www-form-urlencoded" },
			body: new URLSearchParams({ t: new URL(link).searchParams.get("t") ?? "" }),
			redirect: "manual",
		});
		expect(again.status).toBe(403);
		expect(await again.text()).toContain("used already");
	});

	it("shows where the group gets stuck with the numbers the transcripts give", async () => {
		await page.goto(`${stack.dashboard.url()}${base}stuck`);
		const shown = await page.$$eval("section[data-topic]", (sections) =>
			sections.map((s) => ({
				topic: s.getAttribute("data-topic") ?? "",
				nodes: Array.from(s.querySelectorAll("tr[data-node]")).map((r) => ({
					node: r.getAttribute("data-node") ?? "",
					learners: Number(r.getAttribute("data-learners")),
					learned: Number(r.getAttribute("data-learned")),
					shaky: Number(r.getAttribute("data-shaky")),
					notyet: Number(r.getAttribute("data-notyet")),
				})),
			})),
		);
		const expected = stuckFromTranscripts(records);
		const key = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();
		expect(shown.map((t) => key(t.topic)).sort()).toEqual(Object.keys(expected).sort());
		for (const t of shown) {
			const want = expected[key(t.topic)] ?? {};
			expect(Object.fromEntries(t.nodes.map(({ node, ...n }) => [key(node), n])), t.topic).toEqual(want);
		}
		// Some learners were stuck somewhere, so the view has something to say.
		expect(shown.some((t) => t.nodes.some((n) => n.shaky + n.notyet > 0))).toBe(true);
		// Never the other community's lessons.
		expect(await page.content()).not.toContain("secret topic");
	});

	it("shows a member's page: their status on each node as their transcripts give it, their lessons", async () => {
		const member = members[1]?.id ?? "";
		await page.goto(`${stack.dashboard.url()}${base}lessons`);
		// Reached from the lessons list, where each participant links to their page.
		const link = await page.$eval(`a[href$="/learners/${member}"]`, (a) => a.getAttribute("href") ?? "");
		await page.goto(`${stack.dashboard.url()}${link}`);
		const shown = await page.$$eval("section[data-topic]", (sections) =>
			sections.flatMap((s) =>
				Array.from(s.querySelectorAll("tr[data-node]")).map((r) => [
					`${s.getAttribute("data-topic")} / ${r.getAttribute("data-node")}`,
					r.getAttribute("data-mastery"),
				]),
			),
		);
		const key = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();
		const expected: Array<[string, string]> = [];
		for (const [topic, nodes] of statusFromTranscripts(records))
			for (const [node, learners] of nodes) {
				const mastery = learners.get(member);
				if (mastery) expected.push([`${topic} / ${node}`, mastery]);
			}
		expect(expected.length).toBeGreaterThan(0);
		expect(shown.map(([k, m]) => [key(k ?? ""), m]).sort()).toEqual(expected.sort());
		const theirs = records.filter((r) =>
			(r.mode === "group" ? lessonParticipants(r) : [r.learner]).some((p) => p.id === member),
		);
		expect(await page.$$eval("main tbody tr:not([data-node])", (rows) => rows.length)).toBe(theirs.length);
		// The name carries a <script>: shown as text, never run.
		expect(await page.$eval("h1", (h) => h.textContent)).toContain("<script>");
		expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
		expect((await page.goto(`${stack.dashboard.url()}${base}learners/nobody`))?.status()).toBe(404);
	});

	it("shows learner and model text with <script> and onerror payloads as text", async () => {
		const first = records[0]?.sessionId ?? "";
		await page.goto(`${stack.dashboard.url()}${base}lessons/${encodeURIComponent(first)}`);
		const text = await page.$eval("main", (m) => m.textContent ?? "");
		expect(text).toContain(SCRIPT);
		expect(text).toContain(IMG);
		expect(await page.$$eval("main script, main img", (xs) => xs.length)).toBe(0);
		expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
		await page.goto(`${stack.dashboard.url()}${base}stuck`);
		expect(await page.$$eval("main img, main script", (xs) => xs.length)).toBe(0);
		expect(await page.$eval("main", (m) => m.textContent ?? "")).toContain(`Adding ${IMG}`);
		await page.goto(`${stack.dashboard.url()}${base}lessons`);
		expect(await page.$eval("main", (m) => m.textContent ?? "")).toContain(SCRIPT);
		expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
	});

	it("refuses another community's pages and lessons, and pages without a session", async () => {
		const other = `/c/${name}/${stack.community}9/`;
		expect((await page.goto(`${stack.dashboard.url()}${other}`))?.status()).toBe(403);
		expect((await page.goto(`${stack.dashboard.url()}${other}export.csv`))?.status()).toBe(403);
		const elsewhere = `${name}:${stack.community}9:x`;
		expect((await page.goto(`${stack.dashboard.url()}${base}lessons/${encodeURIComponent(elsewhere)}`))?.status()).toBe(
			404,
		);
		const anonymous = await fetch(`${stack.dashboard.url()}${base}`);
		expect(anonymous.status).toBe(401);
	});

	it("refuses an expired link", async () => {
		const link = linkIn((await stack.command(stack.admin)).text);
		ahead = 11;
		try {
			const fresh = await browser.createBrowserContext();
			const p = await fresh.newPage();
			expect((await p.goto(link))?.status()).toBe(403);
			const posted = await fetch(`${stack.dashboard.url()}/signin`, {
				method: "POST",
				headers: { "content-type": "application/x-www-form-urlencoded" },
				body: new URLSearchParams({ t: new URL(link).searchParams.get("t") ?? "" }),
				redirect: "manual",
			});
			expect(posted.status).toBe(403);
			await fresh.close();
		} finally {
			ahead = 0;
		}
	});

	it("exports a CSV with one row per participant per lesson, ids as text beside names", async () => {
		const cookie = (await page.cookies())[0];
		const response = await fetch(`${stack.dashboard.url()}${base}export.csv`, {
			headers: { cookie: `${cookie?.name}=${cookie?.value}` },
		});
		expect(response.status).toBe(200);
		const lines = (await response.text()).trim().split("\r\n");
		expect(lines[0]).toMatch(/^member,name,lesson,topic/);
		const rows = records.reduce((n, r) => n + (r.mode === "group" ? lessonParticipants(r).length : 1), 0);
		expect(lines.length - 1).toBe(rows);
		expect(lines.some((l) => l.startsWith(`${name}:1100000000000000001,Ada,`))).toBe(true);
	});

	it("passes axe-core without serious or critical violations, and is photographed at desktop and phone width", async () => {
		const first = records[0]?.sessionId ?? "";
		const pages = {
			overview: base,
			stuck: `${base}stuck`,
			lessons: `${base}lessons`,
			transcript: `${base}lessons/${encodeURIComponent(first)}`,
			learner: `${base}learners/${encodeURIComponent(members[1]?.id ?? "")}`,
		};
		for (const [label, path] of Object.entries(pages)) {
			for (const [width, height, device] of [
				[1280, 900, "desktop"],
				[375, 812, "phone"],
			] as const) {
				await page.setViewport({ width, height });
				await page.goto(`${stack.dashboard.url()}${path}`);
				// Nothing wider than the screen but the tables, which scroll in their own box.
				const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
				expect(overflow, `${label} at ${width}`).toBeLessThanOrEqual(0);
				await page.screenshot({ path: join(OUT, `${name}-${label}-${device}.png`), fullPage: true });
			}
			await page.evaluate(axeSource);
			const violations = await page.evaluate(async () => {
				const axe = (
					window as unknown as {
						axe: { run(): Promise<{ violations: Array<{ id: string; impact?: string; nodes: unknown[] }> }> };
					}
				).axe;
				const result = await axe.run();
				return result.violations
					.filter((v) => v.impact === "serious" || v.impact === "critical")
					.map((v) => `${v.id} (${v.nodes.length})`);
			});
			expect(violations, label).toEqual([]);
		}
	});

	it("signs out only through its own form", async () => {
		const cookie = (await page.cookies())[0];
		const forged = await fetch(`${stack.dashboard.url()}/signout`, {
			method: "POST",
			headers: { cookie: `${cookie?.name}=${cookie?.value}`, "content-type": "application/x-www-form-urlencoded" },
			body: "csrf=guess",
			redirect: "manual",
		});
		expect(forged.status).toBe(403);
		await page.goto(`${stack.dashboard.url()}${base}`);
		await Promise.all([page.waitForNavigation(), page.click("nav form button")]);
		expect(new URL(page.url()).pathname).toBe("/signed-out");
		expect((await page.goto(`${stack.dashboard.url()}${base}`))?.status()).toBe(401);
	});
});
