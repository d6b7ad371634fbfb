// quicktype → Python, Go and Rust: models from the packaged spec's schemas, built with each language's own
// toolchain (offline: Python's standard library and Debian's python3-dateutil, Debian's Go, Rust with Debian's
// serde crates), then fed the real payloads.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { command, mustRun, root } from "../package/consumer-project.js";
import type { Payload } from "./answers.js";

export interface ModelResult {
  language: string;
  /** Everything the generator printed, less the notes `freeFormNotes` accounts for. */
  warnings: string[];
  /** quicktype's "cannot infer" notes on the spec's free-form JSON values (`additionalProperties: true`). */
  freeFormNotes: number;
  built: boolean;
  buildOutput: string;
  /** Payload id -> error, for the payloads that did not decode. */
  failures: Record<string, string>;
  decoded: Set<string>;
  files: string[];
}

const quicktypeBin = join(root, "node_modules", "quicktype", "dist", "index.js");
/** Debian's Python, whose only extra package is Debian's python3-dateutil (quicktype's date-time parsing). */
const PYTHON = "/usr/bin/python3";

/**
 * quicktype reads JSON Schema, not OpenAPI: the spec's `components.schemas` become the `$defs` of one 2020-12
 * document, and every definition is a top-level type (`schema.json#/$defs/`), as a user would do.
 */
export function writeJsonSchema(spec: any, file: string): void {
  const defs = JSON.parse(JSON.stringify(spec.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'));
  writeFileSync(file, JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", $defs: defs }, null, 2));
}

/** JSON property names whose values the spec leaves free-form: quicktype notes it cannot type them. */
function freeFormProperties(spec: any): string[] {
  const names = new Set<string>();
  const visit = (node: any) => {
    if (!node || typeof node !== "object") return;
    for (const [name, sub] of Object.entries<any>(node.properties ?? {})) {
      if (sub?.additionalProperties === true && !sub.properties) names.add(name);
    }
    Object.values(node).forEach(visit);
  };
  visit(spec.components.schemas);
  return [...names];
}

async function quicktype(schemaFile: string, lang: string, out: string, spec: any) {
  const result = await mustRun(process.execPath, [quicktypeBin, "-s", "schema", "--src", `${schemaFile}#/$defs/`, "-l", lang, "-o", out], {
    cwd: root,
    env: { NO_COLOR: "1" },
  });
  // quicktype prints "Issue in line N: quicktype cannot infer this type…" followed by the code line. Those on a
  // property the spec declares free-form are expected (its type is "any JSON"); anything else is a warning.
  const normalise = (text: string) => text.toLowerCase().replaceAll("_", "");
  const freeForm = freeFormProperties(spec).map(normalise);
  const lines = (result.stdout + result.stderr).split("\n").filter((line) => line.trim());
  const warnings: string[] = [];
  let notes = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const code = lines[i + 1] ?? "";
    if (
      /^Issue in line \d+: quicktype cannot infer this type because there is no data about it/.test(line) &&
      freeForm.some((name) => normalise(code).includes(name))
    ) {
      notes++;
      i++;
    } else warnings.push(line);
  }
  return { warnings, notes };
}

const decodeCases = (dir: string, payloads: Payload[]) => {
  mkdirSync(join(dir, "payloads"), { recursive: true });
  const cases = payloads.map(({ id, types, body }) => {
    const file = join(dir, "payloads", `${id}.json`);
    writeFileSync(file, JSON.stringify(body));
    return { id, types, file };
  });
  writeFileSync(join(dir, "cases.json"), JSON.stringify(cases));
  return join(dir, "cases.json");
};

/** Each decoder prints `{ id: null | "error" }`. */
function parseDecoded(stdout: string) {
  const outcome: Record<string, string | null> = JSON.parse(stdout.trim().split("\n").pop()!);
  const decoded = new Set(Object.keys(outcome).filter((id) => outcome[id] === null));
  const failures = Object.fromEntries(Object.entries(outcome).filter(([, error]) => error !== null)) as Record<string, string>;
  return { decoded, failures };
}

const typeNames = (payloads: Payload[]) => [...new Set(payloads.flatMap((payload) => payload.types))].sort();

export async function python(spec: any, schemaFile: string, dir: string, payloads: Payload[]): Promise<ModelResult> {
  mkdirSync(dir, { recursive: true });
  const { warnings, notes } = await quicktype(schemaFile, "py", join(dir, "models.py"), spec);
  const cases = decodeCases(dir, payloads);
  writeFileSync(
    join(dir, "decode.py"),
    [
      "import json, sys",
      "import models",
      "out = {}",
      "for case in json.load(open(sys.argv[1])):",
      "    body = json.load(open(case['file']))",
      "    errors = []",
      "    for name in case['types']:",
      "        try:",
      "            getattr(models, name).from_dict(body)",
      "            errors = None",
      "            break",
      "        except Exception as error:",
      "            errors.append(f'{name}: {error!r}')",
      "    out[case['id']] = None if errors is None else '; '.join(errors)",
      "print(json.dumps(out))",
      "",
    ].join("\n"),
  );
  // The import is the build: with warnings as errors, so a deprecation in the generated code fails it.
  const build = await command(PYTHON, ["-W", "error", "-c", "import models"], { cwd: dir });
  const run = build.code === 0 ? await command(PYTHON, ["decode.py", cases], { cwd: dir }) : undefined;
  return {
    language: "Python",
    warnings,
    freeFormNotes: notes,
    built: build.code === 0,
    buildOutput: build.stdout + build.stderr,
    ...(run?.code === 0 ? parseDecoded(run.stdout) : { decoded: new Set<string>(), failures: { run: run?.stderr ?? "not built" } }),
    files: [join(dir, "models.py")],
  };
}

export async function go(spec: any, schemaFile: string, dir: string, payloads: Payload[]): Promise<ModelResult> {
  mkdirSync(dir, { recursive: true });
  const { warnings, notes } = await quicktype(schemaFile, "go", join(dir, "models.go"), spec);
  const cases = decodeCases(dir, payloads);
  writeFileSync(join(dir, "go.mod"), "module orgagentmodels\n\ngo 1.19\n");
  const decoders = typeNames(payloads)
    .map((name) => `\t${JSON.stringify(name)}: func(b []byte) error { _, err := Unmarshal${name}(b); return err },`)
    .join("\n");
  writeFileSync(
    join(dir, "decode.go"),
    `package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

var decoders = map[string]func([]byte) error{
${decoders}
}

func main() {
	var cases []struct {
		ID    string   \`json:"id"\`
		Types []string \`json:"types"\`
		File  string   \`json:"file"\`
	}
	data, err := os.ReadFile(os.Args[1])
	if err == nil {
		err = json.Unmarshal(data, &cases)
	}
	if err != nil {
		panic(err)
	}
	out := map[string]interface{}{}
	for _, c := range cases {
		body, err := os.ReadFile(c.File)
		if err != nil {
			panic(err)
		}
		var errs []string
		for _, name := range c.Types {
			if err := decoders[name](body); err != nil {
				errs = append(errs, name+": "+err.Error())
			} else {
				errs = nil
				break
			}
		}
		if errs == nil {
			out[c.ID] = nil
		} else {
			out[c.ID] = strings.Join(errs, "; ")
		}
	}
	encoded, _ := json.Marshal(out)
	fmt.Println(string(encoded))
}
`,
  );
  const env = { GOFLAGS: "-mod=mod", GOPROXY: "off", GOCACHE: join(dir, ".gocache"), GOPATH: join(dir, ".gopath") };
  const vet = await command("go", ["vet", "./..."], { cwd: dir, env });
  const build = vet.code === 0 ? await command("go", ["build", "-o", "decode", "."], { cwd: dir, env }) : vet;
  const run = build.code === 0 ? await command(join(dir, "decode"), [cases], { cwd: dir }) : undefined;
  return {
    language: "Go",
    warnings,
    freeFormNotes: notes,
    built: build.code === 0 && !(vet.stdout + vet.stderr).trim(),
    buildOutput: vet.stdout + vet.stderr + (build === vet ? "" : build.stdout + build.stderr),
    ...(run?.code === 0 ? parseDecoded(run.stdout) : { decoded: new Set<string>(), failures: { run: run?.stderr ?? "not built" } }),
    files: [join(dir, "models.go")],
  };
}

/** Debian's Rust crates as the only registry, offline (librust-serde-dev, librust-serde-derive-dev, librust-serde-json-dev). */
const CARGO_CONFIG = `[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"

[net]
offline = true
`;

export async function rust(spec: any, schemaFile: string, dir: string, payloads: Payload[]): Promise<ModelResult> {
  mkdirSync(join(dir, "src"), { recursive: true });
  mkdirSync(join(dir, ".cargo"), { recursive: true });
  const { warnings, notes } = await quicktype(schemaFile, "rs", join(dir, "src", "models.rs"), spec);
  const cases = decodeCases(dir, payloads);
  writeFileSync(join(dir, ".cargo", "config.toml"), CARGO_CONFIG);
  writeFileSync(
    join(dir, "Cargo.toml"),
    `[package]\nname = "orgagent_models"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\nserde = { version = "1", features = ["derive"] }\nserde_json = "1"\n`,
  );
  // A library, as a user would ship the models: its public types are not dead code.
  writeFileSync(join(dir, "src", "lib.rs"), "pub mod models;\n");
  const arms = typeNames(payloads)
    .map((name) => `        ${JSON.stringify(name)} => serde_json::from_str::<${name}>(text).map(|_| ()).map_err(|e| e.to_string()),`)
    .join("\n");
  writeFileSync(
    join(dir, "src", "main.rs"),
    `use orgagent_models::models::*;

fn decode(name: &str, text: &str) -> Result<(), String> {
    match name {
${arms}
        _ => Err(format!("no decoder for {}", name)),
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("cases.json");
    let cases: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = serde_json::Map::new();
    for case in cases.as_array().unwrap() {
        let text = std::fs::read_to_string(case["file"].as_str().unwrap()).unwrap();
        let mut errors = Vec::new();
        let mut ok = false;
        for name in case["types"].as_array().unwrap() {
            let name = name.as_str().unwrap();
            match decode(name, &text) {
                Ok(()) => { ok = true; break; }
                Err(error) => errors.push(format!("{}: {}", name, error)),
            }
        }
        let outcome = if ok { serde_json::Value::Null } else { serde_json::Value::String(errors.join("; ")) };
        out.insert(case["id"].as_str().unwrap().to_string(), outcome);
    }
    println!("{}", serde_json::Value::Object(out));
}
`,
  );
  const build = await command("cargo", ["build", "--offline", "--quiet"], { cwd: dir, timeout: 300_000 });
  const run = build.code === 0 ? await command(join(dir, "target", "debug", "orgagent_models"), [cases], { cwd: dir }) : undefined;
  return {
    language: "Rust",
    warnings,
    freeFormNotes: notes,
    built: build.code === 0 && !/warning/i.test(build.stderr),
    buildOutput: build.stdout + build.stderr,
    ...(run?.code === 0 ? parseDecoded(run.stdout) : { decoded: new Set<string>(), failures: { run: run?.stderr ?? "not built" } }),
    files: [join(dir, "src", "models.rs")],
  };
}

export const readText = (file: string) => readFileSync(file, "utf8");
