/**
 * The fake Discord's HTTP side: read the body (JSON or multipart, files kept
 * with their bytes), record the call, check auth, apply scripted faults, and
 * route. Attachment URLs serve the uploaded bytes back.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import type { FakeDiscord } from "../discord.ts";
import type { Route } from "./rest-routes.ts";
import type { RecordedCall } from "./types.ts";

/** Answer one HTTP request. */
export async function handleHttp(
	fake: FakeDiscord,
	routes: Route[],
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const url = new URL(req.url ?? "/", fake.baseUrl);
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const raw = Buffer.concat(chunks);
	if (req.method === "GET" && url.pathname.startsWith("/attachments/")) {
		fake.attachmentFetches.push({ path: url.pathname, authorized: req.headers.authorization !== undefined });
		fake.changed();
		return serveAttachment(fake, url.pathname, res);
	}
	const path = url.pathname.replace(/^\/api\/v10/, "");
	const call: RecordedCall = {
		method: req.method ?? "GET",
		path,
		query: Object.fromEntries(url.searchParams),
		body: undefined,
		files: [],
		status: 0,
		problems: [],
		at: Date.now(),
	};
	const reply = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
		call.status = status;
		fake.calls.push(call);
		res.writeHead(status, body === undefined ? headers : { "content-type": "application/json", ...headers });
		res.end(body === undefined ? undefined : JSON.stringify(body));
		fake.changed();
	};
	try {
		const ct = req.headers["content-type"] ?? "";
		if (ct.startsWith("multipart/form-data")) {
			const form = await new Request("http://fake.invalid/", {
				method: "POST",
				headers: { "content-type": ct },
				body: raw,
			}).formData();
			const entries: Array<[string, FormDataEntryValue]> = [];
			form.forEach((value, field) => void entries.push([field, value]));
			for (const [field, value] of entries) {
				if (typeof value === "string") {
					if (field === "payload_json") call.body = JSON.parse(value);
				} else {
					call.files.push({
						field,
						filename: value.name,
						contentType: value.type,
						data: Buffer.from(await value.arrayBuffer()),
					});
				}
			}
		} else if (raw.length > 0) {
			call.body = JSON.parse(raw.toString("utf8"));
		}
	} catch (error) {
		return reply(400, { code: 50109, message: `The request body contains invalid JSON: ${String(error)}` });
	}
	if (!url.pathname.startsWith("/api/v10/")) return reply(404, { code: 0, message: "404: Not Found" });
	const open = /^\/(interactions|webhooks)\//.test(path);
	if (!open && req.headers.authorization !== `Bot ${fake.token}`)
		return reply(401, { code: 0, message: "401: Unauthorized" });
	const faultIndex = fake.faults.findIndex(
		(f) => f.path.test(path) && (!f.method || f.method === call.method) && (!f.when || f.when(call.body)),
	);
	const fault = fake.faults[faultIndex];
	if (fault) {
		fault.times = (fault.times ?? 1) - 1;
		if (fault.times <= 0) fake.faults.splice(faultIndex, 1);
		return reply(fault.status, fault.body ?? { code: 0, message: `fault ${fault.status}` }, fault.headers);
	}
	for (const [method, re, handler] of routes) {
		const m = method === call.method ? re.exec(path) : null;
		if (!m) continue;
		const [status, body] = await handler({
			params: m.slice(1).map((x) => decodeURIComponent(x)),
			body: call.body,
			files: call.files,
			query: call.query,
			call,
		});
		return reply(status, body);
	}
	return reply(404, { code: 0, message: `404: Not Found (${call.method} ${path})` });
}

function serveAttachment(fake: FakeDiscord, pathname: string, res: ServerResponse): void {
	const [, , , id] = pathname.split("/");
	const att =
		[...fake.messages.values()].flatMap((m) => m.attachments).find((a) => a.id === id) ??
		fake.commandAttachments.find((a) => a.id === id);
	res.writeHead(att ? 200 : 404, { "content-type": att?.contentType ?? "text/plain" });
	res.end(att?.data ?? "not found");
}
