/**
 * Sign-in for the dashboard: one-time links and the sessions they open.
 *
 * A link carries `<payload>.<signature>`: the payload (platform, community,
 * admin, a random nonce, the expiry) in base64url, signed with HMAC-SHA256
 * under LEARNHARNESS_DASHBOARD_SECRET, compared in constant time. Using it
 * stores its nonce with set-if-absent (atomic across processes sharing the
 * store), so a second use is refused wherever it arrives. A used link opens a
 * session: a random cookie whose SHA-256 (never the cookie) keys the session's
 * record (community, admin, expiry) in the store for SESSION_TTL_MS. The
 * sign-out form carries a CSRF token: an HMAC of the cookie.
 */

import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type StateStore, stateKeys } from "../agent/index.ts";
import type { DashboardLinkRequest } from "../core/contracts/dashboard.ts";

/** How long a sign-in link works. */
export const LINK_TTL_MS = 10 * 60_000;
/** How long a session lasts after sign-in (then the admin asks for a new link). */
export const SESSION_TTL_MS = 60 * 60_000;

/** What a link (and then a session) grants: one community's pages, to one admin. */
export interface Grant {
	platform: string;
	community: string;
	admin: string;
	adminName?: string;
}

/** A link's checked payload. */
export interface LinkClaim extends Grant {
	nonce: string;
	expires: number;
}

/** Why a link is refused. */
export type LinkRefusal = "malformed" | "bad-signature" | "expired" | "used";

const b64 = (buf: Buffer): string => buf.toString("base64url");
const sha256 = (text: string): string => createHash("sha256").update(text).digest("base64url");

/** Equal strings, compared in time that depends on their length only. */
export function sameSecret(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const str = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 200;

/** Links, sessions and CSRF tokens under one secret, on the dashboard's state store. */
export class SignIn {
	constructor(
		private readonly secret: string,
		private readonly state: StateStore,
		private readonly now: () => Date,
	) {}

	private sign(purpose: string, text: string): string {
		return b64(createHmac("sha256", this.secret).update(`${purpose}\n${text}`).digest());
	}

	/** A new link's token for `request`, and when it expires. */
	token(request: DashboardLinkRequest): { token: string; expires: number } {
		const expires = this.now().getTime() + LINK_TTL_MS;
		const payload = {
			p: request.platform,
			c: request.community,
			a: request.admin.id,
			...(request.admin.name ? { an: request.admin.name.slice(0, 100) } : {}),
			n: b64(randomBytes(16)),
			e: expires,
		};
		const body = b64(Buffer.from(JSON.stringify(payload)));
		return { token: `${body}.${this.sign("link", body)}`, expires };
	}

	/** The claim of a token whose signature holds and which has not expired (it may have been used). */
	check(token: unknown): LinkClaim | LinkRefusal {
		if (typeof token !== "string" || token.length > 2000) return "malformed";
		const dot = token.indexOf(".");
		if (dot <= 0) return "malformed";
		const body = token.slice(0, dot);
		if (!sameSecret(token.slice(dot + 1), this.sign("link", body))) return "bad-signature";
		let v: unknown;
		try {
			v = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
		} catch {
			return "malformed";
		}
		if (!isObject(v) || !str(v.p) || !str(v.c) || !str(v.a) || !str(v.n) || typeof v.e !== "number") return "malformed";
		if (v.e <= this.now().getTime()) return "expired";
		return {
			platform: v.p,
			community: v.c,
			admin: v.a,
			...(str(v.an) ? { adminName: v.an } : {}),
			nonce: v.n,
			expires: v.e,
		};
	}

	/** Whether the link was used already (a read: the sign-in page asks before showing its button). */
	async used(claim: LinkClaim): Promise<boolean> {
		return (await this.state.get(stateKeys.dashboardLink(claim.nonce))) !== undefined;
	}

	/** Use a link once: its session's cookie, or why not. Atomic across processes. */
	async use(token: unknown): Promise<{ cookie: string; grant: Grant } | LinkRefusal> {
		const claim = this.check(token);
		if (typeof claim === "string") return claim;
		const left = claim.expires - this.now().getTime();
		// Kept a minute past the expiry: by then the signature check refuses it anyway.
		if (!(await this.state.setIfAbsent(stateKeys.dashboardLink(claim.nonce), 1, left + 60_000))) return "used";
		const grant: Grant = {
			platform: claim.platform,
			community: claim.community,
			admin: claim.admin,
			...(claim.adminName ? { adminName: claim.adminName } : {}),
		};
		const cookie = b64(randomBytes(32));
		await this.state.set(
			stateKeys.dashboardSession(sha256(cookie)),
			{ ...grant, expires: this.now().getTime() + SESSION_TTL_MS },
			SESSION_TTL_MS,
		);
		return { cookie, grant };
	}

	/** The session a cookie opens; undefined when there is none (unknown, expired, signed out). */
	async session(cookie: string | undefined): Promise<Grant | undefined> {
		if (!cookie || cookie.length > 100) return undefined;
		const v = await this.state.get(stateKeys.dashboardSession(sha256(cookie)));
		if (!isObject(v) || !str(v.platform) || !str(v.community) || !str(v.admin) || typeof v.expires !== "number")
			return undefined;
		if (v.expires <= this.now().getTime()) return undefined;
		return {
			platform: v.platform,
			community: v.community,
			admin: v.admin,
			...(str(v.adminName) ? { adminName: v.adminName } : {}),
		};
	}

	/** End a session. */
	async signOut(cookie: string): Promise<void> {
		await this.state.delete(stateKeys.dashboardSession(sha256(cookie)));
	}

	/** The CSRF token of a session's forms. */
	csrf(cookie: string): string {
		return this.sign("csrf", cookie);
	}
}
