/**
 * The dashboard's HTTP server (node:http): routes, headers, the session check.
 *
 *   GET  /signin?t=…          the link's page: a Sign in button (link previewers only GET: the link stays unused)
 *   POST /signin              uses the link once, sets the session cookie, redirects to the community
 *   POST /signout             ends the session (CSRF token and Origin checked)
 *   GET  /c/<platform>/<community>/            overview
 *        …/stuck  …/lessons[?page=n]  …/lessons/<session id>  …/learners/<member id>  …/export.csv
 *   GET  /static/dashboard.css
 *
 * Every response carries a strict Content-Security-Policy (no script at all,
 * styles from this origin only), no caching of pages, no referrer to other
 * sites (a link's token never leaves in a Referer), and no framing. A community's pages need a
 * session for that very community; another's are refused (403).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Learning, SessionRecord } from "../agent/index.ts";
import type { Logger } from "../core/contracts/logger.ts";
import { communityOf, platformOf } from "../core/contracts/thread-id.ts";
import { dashboardCsv } from "./csv.ts";
import { type Frame, html, page, STYLESHEET } from "./html.ts";
import { LESSONS_PER_PAGE, learnerBody, lessonsBody, messageBody, overviewBody, stuckBody } from "./pages.ts";
import { type Grant, SESSION_TTL_MS, type SignIn, sameSecret } from "./sign-in.ts";
import { learnerOf, newestFirst } from "./stats.ts";
import { CommunitySums } from "./sums.ts";
import { transcriptBody } from "./transcript-page.ts";

/** The Content-Security-Policy of every response. */
export const CONTENT_SECURITY_POLICY =
	"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Largest form body accepted (a sign-in token or a CSRF token). */
const MAX_BODY_BYTES = 4096;

/** What the server reads. */
export interface DashboardServerDeps {
	signIn: SignIn;
	learning: Pick<Learning, "lessons" | "lessonBuckets">;
	records: { get(sessionId: string): Promise<SessionRecord | undefined> };
	logger: Logger;
	now: () => Date;
	/** The origin people reach the dashboard at (checked against a POST's Origin); undefined until listening. */
	origin: () => string | undefined;
	/** The session cookie is `Secure` (an https public URL). */
	secure: boolean;
}

class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly title: string,
		readonly detail?: string,
	) {
		super(title);
	}
}

const SIGN_IN_HINT = "Ask for a new link with /lesson dashboard (admins) in your server or workspace.";

/** The dashboard's request handler on a node:http server (not yet listening). */
export function createDashboardServer(deps: DashboardServerDeps): Server {
	const cookieName = deps.secure ? "__Host-lh_dashboard" : "lh_dashboard";
	const sums = new CommunitySums();
	const cookieOf = (req: IncomingMessage): string | undefined => {
		for (const pair of (req.headers.cookie ?? "").split(";")) {
			const eq = pair.indexOf("=");
			if (eq > 0 && pair.slice(0, eq).trim() === cookieName) return pair.slice(eq + 1).trim();
		}
		return undefined;
	};
	const setCookie = (value: string, maxAgeS: number) =>
		`${cookieName}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${deps.secure ? "; Secure" : ""}`;

	const send = (
		res: ServerResponse,
		status: number,
		type: string,
		body: string,
		extra: Record<string, string> = {},
	) => {
		res.writeHead(status, {
			"Content-Type": type,
			"Content-Security-Policy": CONTENT_SECURITY_POLICY,
			"X-Content-Type-Options": "nosniff",
			// Same-origin only: a link's token never leaves in a Referer, and forms keep their Origin (no-referrer makes it "null").
			"Referrer-Policy": "same-origin",
			"X-Frame-Options": "DENY",
			"Cross-Origin-Opener-Policy": "same-origin",
			"Cache-Control": "no-store",
			...extra,
		});
		res.end(body);
	};
	const sendPage = (res: ServerResponse, status: number, frame: Frame, body: ReturnType<typeof html>, extra = {}) =>
		send(res, status, "text/html; charset=utf-8", page(frame, body), extra);
	const redirect = (res: ServerResponse, to: string, extra: Record<string, string> = {}) =>
		send(res, 303, "text/plain; charset=utf-8", "", { Location: to, ...extra });

	const readForm = async (req: IncomingMessage): Promise<URLSearchParams> => {
		const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
		if (type !== "application/x-www-form-urlencoded") throw new HttpError(415, "Send the form as a browser does.");
		const chunks: Buffer[] = [];
		let size = 0;
		for await (const chunk of req) {
			const buf = chunk as Buffer;
			size += buf.length;
			if (size > MAX_BODY_BYTES) throw new HttpError(413, "The form is too large.");
			chunks.push(buf);
		}
		return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
	};
	const checkOrigin = (req: IncomingMessage) => {
		const origin = req.headers.origin;
		// Browsers send Origin on every POST; one from elsewhere is a cross-site request.
		if (origin !== undefined && origin !== deps.origin()) throw new HttpError(403, "This form came from another site.");
	};

	const signInPage = async (res: ServerResponse, url: URL) => {
		const token = url.searchParams.get("t") ?? "";
		const claim = deps.signIn.check(token);
		if (typeof claim === "string" || (await deps.signIn.used(claim)))
			throw new HttpError(
				403,
				"This sign-in link is no longer valid",
				`Links work once, for ten minutes. ${SIGN_IN_HINT}`,
			);
		sendPage(
			res,
			200,
			{ title: "Sign in to the dashboard" },
			html`<p>This link opens the dashboard of ${claim.platform} community <strong>${claim.community}</strong> for ${claim.adminName ?? claim.admin}, once.</p>
<form method="post" action="/signin"><input type="hidden" name="t" value="${token}"><button type="submit">Sign in</button></form>`,
		);
	};

	const signIn = async (req: IncomingMessage, res: ServerResponse) => {
		checkOrigin(req);
		const used = await deps.signIn.use((await readForm(req)).get("t"));
		if (typeof used === "string")
			throw new HttpError(
				403,
				used === "used" ? "This sign-in link was used already" : "This sign-in link is no longer valid",
				`Links work once, for ten minutes. ${SIGN_IN_HINT}`,
			);
		redirect(res, `${baseOf(used.grant)}/`, {
			"Set-Cookie": setCookie(used.cookie, Math.floor(SESSION_TTL_MS / 1000)),
		});
	};

	const signOut = async (req: IncomingMessage, res: ServerResponse) => {
		checkOrigin(req);
		const cookie = cookieOf(req);
		const form = await readForm(req);
		if (!cookie || !sameSecret(form.get("csrf") ?? "", deps.signIn.csrf(cookie)))
			throw new HttpError(403, "This sign-out form is not from your session.");
		await deps.signIn.signOut(cookie);
		redirect(res, "/signed-out", { "Set-Cookie": setCookie("", 0) });
	};

	const community = async (req: IncomingMessage, res: ServerResponse, url: URL, rest: string[]) => {
		const [platform = "", id = "", section = "", ...more] = rest;
		const cookie = cookieOf(req);
		const grant = await deps.signIn.session(cookie);
		if (!grant || !cookie) throw new HttpError(401, "Sign in first", SIGN_IN_HINT);
		if (grant.platform !== platform || grant.community !== id)
			throw new HttpError(403, "This page belongs to another community", "Your session opens one community's pages.");
		const base = baseOf(grant);
		const frame = { base, community: `${platform} ${id}`, csrf: deps.signIn.csrf(cookie) };
		const indexed = `${platform}:${id}`;
		const digests = () => deps.learning.lessons(indexed);
		const buckets = () => deps.learning.lessonBuckets(indexed);
		if (section === "" && more.length === 0) {
			const body = overviewBody(sums.overview(indexed, await buckets(), deps.now()), base);
			return sendPage(res, 200, { ...frame, title: "Overview", section: "overview" }, body);
		}
		if (section === "stuck" && more.length === 0)
			return sendPage(
				res,
				200,
				{ ...frame, title: "Where the group gets stuck", section: "stuck" },
				stuckBody(sums.stuck(indexed, await buckets())),
			);
		if (section === "lessons" && more.length === 0) {
			const all = newestFirst(await digests());
			const n = Number(url.searchParams.get("page") ?? "1");
			const pageNo = Number.isInteger(n) && n >= 1 ? n : 1;
			const shown = all.slice((pageNo - 1) * LESSONS_PER_PAGE, pageNo * LESSONS_PER_PAGE);
			return sendPage(
				res,
				200,
				{ ...frame, title: "Lessons", section: "lessons" },
				lessonsBody(shown, pageNo, all.length, base),
			);
		}
		if (section === "lessons" && more.length === 1) {
			const sessionId = more[0] ?? "";
			// Only this community's lessons, whatever id is asked for.
			const record =
				platformOf(sessionId) === platform && communityOf(sessionId) === id
					? await deps.records.get(sessionId)
					: undefined;
			if (!record)
				throw new HttpError(
					404,
					"No such lesson here",
					"It may have been deleted (forget-me) or be past its retention.",
				);
			return sendPage(
				res,
				200,
				{ ...frame, title: `Lesson: ${record.topic}`, section: "lessons" },
				transcriptBody(record, base),
			);
		}
		if (section === "learners" && more.length === 1) {
			const view = learnerOf(await digests(), more[0] ?? "");
			if (!view) throw new HttpError(404, "No such learner here", "They have no recorded lesson in this community.");
			const title = `Learner: ${view.name ? `${view.name} (${view.id})` : view.id}`;
			return sendPage(res, 200, { ...frame, title, section: "lessons" }, learnerBody(view, base));
		}
		if (section === "export.csv" && more.length === 0)
			return send(res, 200, "text/csv; charset=utf-8", dashboardCsv(await digests(), platform), {
				"Content-Disposition": `attachment; filename="lessons-${safeName(platform)}-${safeName(id)}.csv"`,
			});
		throw new HttpError(404, "No such page");
	};

	const route = async (req: IncomingMessage, res: ServerResponse) => {
		const url = new URL(req.url ?? "/", "http://dashboard.invalid");
		let parts: string[];
		try {
			parts = url.pathname.split("/").slice(1).map(decodeURIComponent);
		} catch {
			throw new HttpError(400, "That address cannot be read.");
		}
		const method = req.method ?? "GET";
		const get = method === "GET" || method === "HEAD";
		const path = url.pathname;
		if (get && path === "/static/dashboard.css")
			return send(res, 200, "text/css; charset=utf-8", STYLESHEET, { "Cache-Control": "max-age=3600" });
		if (get && path === "/signin") return signInPage(res, url);
		if (method === "POST" && path === "/signin") return signIn(req, res);
		if (method === "POST" && path === "/signout") return signOut(req, res);
		if (get && path === "/signed-out")
			return sendPage(res, 200, { title: "Signed out" }, messageBody("You are signed out.", SIGN_IN_HINT));
		if (get && path === "/") {
			const grant = await deps.signIn.session(cookieOf(req));
			if (grant) return redirect(res, `${baseOf(grant)}/`);
			throw new HttpError(401, "Sign in first", SIGN_IN_HINT);
		}
		if (get && parts[0] === "c") return community(req, res, url, parts.slice(1));
		if (!get && method !== "POST") throw new HttpError(405, "That method is not served here.");
		throw new HttpError(404, "No such page");
	};

	return createServer((req, res) => {
		route(req, res).catch((error: unknown) => {
			const known = error instanceof HttpError ? error : undefined;
			if (!known) deps.logger.warn({ err: error }, "dashboard: a request failed");
			if (res.headersSent) return void res.destroy();
			const status = known?.status ?? 500;
			const title = known?.title ?? "The dashboard could not read the store; try again.";
			sendPage(res, status, { title }, messageBody(title, known?.detail));
		});
	});
}

/** The base path of a grant's pages. */
export function baseOf(grant: Pick<Grant, "platform" | "community">): string {
	return `/c/${encodeURIComponent(grant.platform)}/${encodeURIComponent(grant.community)}`;
}

/** Letters, digits and `-` only (a file name in a header). */
const safeName = (s: string): string => s.replace(/[^A-Za-z0-9-]/g, "_").slice(0, 60);

/** Listen on `host`:`port`; the bound address. */
export function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
	return new Promise((done, fail) => {
		server.once("error", fail);
		server.listen(port, host, () => {
			server.off("error", fail);
			done(server.address() as AddressInfo);
		});
	});
}
