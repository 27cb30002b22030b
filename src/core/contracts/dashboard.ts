/**
 * The admins' web dashboard as the lesson controller sees it: one call that
 * issues a sign-in link. The dashboard (src/dashboard) implements it; the
 * composition root hands it to the platforms' controllers, so `/lesson
 * dashboard` needs no import of the web server.
 */

import type { Participant } from "./events.ts";

/** Who asks for a link, for which community (the platform's name and its guild or team id). */
export interface DashboardLinkRequest {
	platform: string;
	community: string;
	admin: Participant;
}

/** A one-time sign-in link: open it before `expiresAt`, once. */
export interface DashboardLink {
	url: string;
	/** ISO time after which the link is refused. */
	expiresAt: string;
	/** Its lifetime in whole minutes (what the reply says). */
	minutes: number;
}

/** Issues sign-in links (the dashboard's side of `/lesson dashboard`). Rejects only on a programming error. */
export interface DashboardSignIn {
	issue(request: DashboardLinkRequest): Promise<DashboardLink>;
}
