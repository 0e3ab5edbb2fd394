import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseContainerfile } from "./containerfile.ts";

const root = join(import.meta.dir, "../..");

describe("the build commands we document", () => {
  test("every podman or buildah build keeps the HEALTHCHECK (--format docker; OCI images drop it)", () => {
    const builds = ["README.md", "Containerfile"].flatMap((file) =>
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .filter((line) => /\b(podman|buildah) (build|bud)\b/.test(line))
        .map((line) => ({ file, line: line.trim(), keeps: /--format[= ]docker\b/.test(line) })),
    );
    expect(builds.length).toBeGreaterThan(1);
    expect(builds.filter((b) => !b.keeps)).toEqual([]);
  });
});

describe("parseContainerfile", () => {
  test("reads stages, continuations, ARG defaults and exec forms", () => {
    const file = parseContainerfile(
      [
        "# a comment",
        "ARG V=1.2",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a Containerfile's own ARG reference.
        "FROM docker.io/oven/bun:${V}-slim AS base",
        "WORKDIR /app",
        "ENV A=1 B=/x",
        "COPY package.json bun.lock ./",
        "RUN bun install --production",
        "FROM base AS svc",
        "USER bun",
        "EXPOSE 8080",
        "HEALTHCHECK --interval=5s \\",
        '  CMD ["bun", "-e", "x"]',
        'ENTRYPOINT ["bun", "cmd/svc.ts"]',
      ].join("\n"),
    );
    expect(file).toEqual({
      args: { V: "1.2" },
      stages: [
        {
          name: "base",
          from: "docker.io/oven/bun:1.2-slim",
          instructions: [
            { kind: "WORKDIR", path: "/app" },
            { kind: "ENV", vars: { A: "1", B: "/x" } },
            { kind: "COPY", sources: ["package.json", "bun.lock"], dest: "./" },
            { kind: "RUN", command: "bun install --production" },
          ],
        },
        {
          name: "svc",
          from: "base",
          instructions: [
            { kind: "USER", user: "bun" },
            { kind: "EXPOSE", ports: [8080] },
            { kind: "HEALTHCHECK", options: { interval: "5s" }, command: ["bun", "-e", "x"] },
            { kind: "ENTRYPOINT", command: ["bun", "cmd/svc.ts"] },
          ],
        },
      ],
    });
  });
});

describe("what the image test does not reproduce is refused by name", () => {
  const refusals: [string, RegExp][] = [
    ["FROM a AS b\nADD x /y", /line 2: ADD is not reproduced/],
    ["FROM a AS b\nCOPY --chown=bun x ./", /COPY is read without flags/],
    ["FROM a AS b\nCMD bun x.ts", /only the exec form/],
    ["FROM a AS b\nENV A 1", /KEY=VALUE/],
    ["WORKDIR /x", /WORKDIR before the first FROM/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Containerfile's own ARG reference.
    ["FROM a:${NOPE} AS b", /ARG NOPE has no default/],
  ];
  for (const [text, refusal] of refusals)
    test(text.split("\n").at(-1) ?? text, () => expect(() => parseContainerfile(text)).toThrow(refusal));
});
