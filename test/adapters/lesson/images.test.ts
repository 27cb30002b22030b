/**
 * The picture download: only allowed origins are ever contacted (redirects elsewhere are
 * not followed), sizes are refused by the declared size, then Content-Length, then by
 * cutting the stream off, types are decided by the bytes, and a slow host times out.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	allowedUrl,
	collectImages,
	describeImageProblems,
	fetchImage,
	type ImageSource,
	limitsOf,
} from "../../../src/adapters/lesson/images.ts";

const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
	"base64",
);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
const GIF = Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1");
const WEBP = Buffer.concat([Buffer.from("RIFF"), Buffer.from([26, 0, 0, 0]), Buffer.from("WEBPVP8L")]);
const PDF = Buffer.from("%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n", "latin1");

interface Host {
	server: Server;
	origin: string;
	requests: Array<{ path: string; authorization?: string }>;
}

async function host(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Host> {
	const requests: Host["requests"] = [];
	const server = createServer((req, res) => {
		requests.push({
			path: req.url ?? "",
			...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
		});
		handler(req, res);
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const serve = (res: ServerResponse, body: Buffer, type = "image/png") => {
	res.writeHead(200, { "content-type": type, "content-length": String(body.length) });
	res.end(body);
};

let files: Host;
let foreign: Host;
const source = (extra: Partial<ImageSource> = {}): ImageSource => ({
	origins: [files.origin],
	headers: { authorization: "Bearer xoxb-secret" },
	limits: { maxBytes: 64 * 1024, timeoutMs: 1_000 },
	...extra,
});

beforeAll(async () => {
	foreign = await host((_req, res) => serve(res, PNG));
	files = await host((req, res) => {
		const path = req.url ?? "";
		if (path === "/png") return serve(res, PNG);
		if (path === "/jpeg") return serve(res, JPEG, "application/octet-stream");
		if (path === "/gif") return serve(res, GIF);
		if (path === "/webp") return serve(res, WEBP);
		if (path === "/pdf-as-png") return serve(res, PDF, "image/png");
		if (path === "/huge-length") {
			// Declares 30 MB; the client must give up on the header, not read on.
			res.writeHead(200, { "content-type": "image/png", "content-length": String(30 * 1024 * 1024) });
			res.write(PNG);
			return;
		}
		if (path === "/endless") {
			// No Content-Length (chunked): keeps sending until the client cuts it off.
			res.writeHead(200, { "content-type": "image/png" });
			const chunk = Buffer.alloc(16 * 1024, 1);
			res.write(PNG);
			const timer = setInterval(() => {
				if (!res.write(chunk) && res.destroyed) clearInterval(timer);
			}, 1);
			res.on("close", () => clearInterval(timer));
			return;
		}
		if (path === "/slow") return; // never answers
		if (path === "/redirect-foreign") {
			res.writeHead(302, { location: `${foreign.origin}/stolen.png` });
			return void res.end();
		}
		if (path === "/redirect-home") {
			res.writeHead(302, { location: "/png" });
			return void res.end();
		}
		res.writeHead(404);
		res.end();
	});
});

afterAll(async () => {
	for (const h of [files, foreign]) {
		h.server.closeAllConnections();
		await new Promise<void>((done) => h.server.close(() => done()));
	}
});

describe("fetchImage", () => {
	it("accepts PNG, JPEG, GIF and WebP by their bytes, with the configured credentials", async () => {
		const cases: Array<[string, string]> = [
			["/png", "image/png"],
			["/jpeg", "image/jpeg"],
			["/gif", "image/gif"],
			["/webp", "image/webp"],
		];
		for (const [path, type] of cases) {
			const out = await fetchImage({ url: `${files.origin}${path}`, name: `x${path}` }, source());
			expect(out, path).toMatchObject({ ok: true, image: { mediaType: type } });
		}
		const png = await fetchImage({ url: `${files.origin}/png`, name: "p.png" }, source());
		expect(png.ok && Buffer.from(png.image.base64, "base64").equals(PNG)).toBe(true);
		expect(files.requests.at(-1)?.authorization).toBe("Bearer xoxb-secret");
	});

	it("refuses a PDF that claims to be a PNG, and does not fetch a declared PDF at all", async () => {
		expect(await fetchImage({ url: `${files.origin}/pdf-as-png`, name: "a.png" }, source())).toMatchObject({
			ok: false,
			reason: "not-an-image",
		});
		const before = files.requests.length;
		expect(
			await fetchImage({ url: `${files.origin}/png`, name: "notes.pdf", declaredType: "application/pdf" }, source()),
		).toMatchObject({ ok: false, reason: "not-an-image", name: "notes.pdf" });
		expect(files.requests.length).toBe(before);
	});

	it("refuses by declared size without fetching, by Content-Length, and cuts a stream off past the cap", async () => {
		const before = files.requests.length;
		expect(
			await fetchImage({ url: `${files.origin}/png`, name: "big.png", declaredSize: 30 * 1024 * 1024 }, source()),
		).toMatchObject({ ok: false, reason: "too-big", size: 30 * 1024 * 1024 });
		expect(files.requests.length).toBe(before);
		expect(await fetchImage({ url: `${files.origin}/huge-length`, name: "h.png" }, source())).toMatchObject({
			ok: false,
			reason: "too-big",
		});
		const started = Date.now();
		expect(await fetchImage({ url: `${files.origin}/endless`, name: "e.png" }, source())).toMatchObject({
			ok: false,
			reason: "too-big",
		});
		expect(Date.now() - started).toBeLessThan(1_000);
	});

	it("never contacts a host outside the allowlist, directly or through a redirect", async () => {
		expect(await fetchImage({ url: `${foreign.origin}/x.png`, name: "x.png" }, source())).toMatchObject({
			ok: false,
			reason: "unavailable",
		});
		expect(await fetchImage({ url: `${files.origin}/redirect-foreign`, name: "r.png" }, source())).toMatchObject({
			ok: false,
			reason: "unavailable",
		});
		expect(foreign.requests).toEqual([]);
		// A redirect within the allowed origin is followed.
		expect(await fetchImage({ url: `${files.origin}/redirect-home`, name: "h.png" }, source())).toMatchObject({
			ok: true,
		});
		// Credentials in a URL, other schemes and look-alike hosts are refused by the allowlist itself.
		const origins = ["https://files.slack.com"];
		expect(allowedUrl("https://files.slack.com/files-pri/T-F/a.png", origins)).toBe(true);
		for (const url of [
			"http://files.slack.com/a.png",
			"https://files.slack.com.evil.example/a.png",
			"https://user:pw@files.slack.com/a.png",
			"https://files.slack.com:8443/a.png",
			"file:///etc/passwd",
			"not a url",
		])
			expect(allowedUrl(url, origins), url).toBe(false);
	});

	it("gives up on a host that does not answer within the deadline", async () => {
		const started = Date.now();
		const out = await fetchImage(
			{ url: `${files.origin}/slow`, name: "s.png" },
			source({ limits: { timeoutMs: 200, maxBytes: 1024 } }),
		);
		expect(out).toMatchObject({ ok: false, reason: "unavailable" });
		expect(Date.now() - started).toBeLessThan(2_000);
	});
});

describe("collectImages", () => {
	it("reads at most the per-message count and words every refusal for the learner", async () => {
		const many = Array.from({ length: 6 }, (_, i) => ({ url: `${files.origin}/png`, name: `p${i}.png` }));
		const before = files.requests.length;
		const read = await collectImages(
			[{ url: `${files.origin}/png`, name: "notes.pdf", declaredType: "application/pdf" }, ...many],
			source(),
		);
		expect(files.requests.length - before).toBe(3);
		expect(read.images).toHaveLength(3);
		expect(read.problems.map((p) => p.reason)).toEqual(["not-an-image", "too-many", "too-many", "too-many"]);
		const lines = describeImageProblems(
			[...read.problems, { reason: "too-big", name: "scan.png", size: 30 * 1024 * 1024 }],
			limitsOf(source()),
		);
		expect(lines.join("\n")).toMatch(
			/"notes\.pdf" is not a picture the tutor can read \(PNG, JPEG, GIF or WebP only\)/,
		);
		expect(lines.join("\n")).toMatch(/"scan\.png" is too big \(30 MB\): pictures up to 0\.1 MB reach the tutor/);
		expect(lines.join("\n")).toMatch(/Only 4 pictures per message reach the tutor; 3 more were left out/);
	});

	it("never lets a configuration exceed the engine's ceilings", () => {
		expect(limitsOf({ limits: { maxBytes: 1e9, maxPerMessage: 100 } })).toMatchObject({
			maxBytes: 5 * 1024 * 1024,
			maxPerMessage: 4,
		});
	});
});
