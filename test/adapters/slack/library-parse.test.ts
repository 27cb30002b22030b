/** The library's words in Slack's `/lesson` text: material list|remove|add, start … from:<name>, the members rule. */

import { describe, expect, it } from "vitest";
import { parseLessonCommand } from "../../../src/adapters/slack/command-parse.ts";

describe("Slack's /lesson text for the library", () => {
	it("parses material list, remove <name with spaces>, and refuses add (no files in slash commands)", () => {
		expect(parseLessonCommand("material")).toEqual({ kind: "material-list" });
		expect(parseLessonCommand("material list")).toEqual({ kind: "material-list" });
		expect(parseLessonCommand("material remove Chapter 8")).toEqual({ kind: "material-remove", name: "Chapter 8" });
		expect(parseLessonCommand("material remove")).toMatchObject({ kind: "invalid" });
		expect(parseLessonCommand("material add notes")).toMatchObject({
			kind: "invalid",
			message: expect.stringContaining("share the file"),
		});
		expect(parseLessonCommand("material dance")).toEqual({ kind: "help", unknown: "material dance" });
	});

	it("takes everything after from: as the library name, the words before as the topic", () => {
		expect(parseLessonCommand("start photosynthesis --group from:Chapter 8")).toEqual({
			kind: "start",
			topic: "photosynthesis",
			mode: "group",
			library: "Chapter 8",
		});
		expect(parseLessonCommand("start cells from: notes.md")).toMatchObject({ topic: "cells", library: "notes.md" });
		expect(parseLessonCommand("start cells")).not.toHaveProperty("library");
	});

	it("sets who may add: members_add_material on|off", () => {
		expect(parseLessonCommand("config members_add_material on")).toEqual({
			kind: "config",
			change: { membersAddMaterial: true },
		});
		expect(parseLessonCommand("config members_add_material maybe")).toMatchObject({
			kind: "config",
			error: expect.any(String),
		});
	});
});
