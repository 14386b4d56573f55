#!/usr/bin/env node
// Generates clients/js/index.d.ts from the OpenRPC document (clients/openrpc.json, what
// `fetchd describe` prints) and the hand-written API declarations in tools/index.d.ts.in.
//
//   node clients/js/tools/gen-types.js            write index.d.ts
//   node clients/js/tools/gen-types.js --check    exit 1 when index.d.ts is not up to date
//   options: --doc PATH (default clients/openrpc.json), --out PATH (default clients/js/index.d.ts)
//
// Schemas use only the subset the document promises: type (a name or an array of names),
// properties, required, additionalProperties, items, enum, const, oneOf, $ref, description,
// title, and the rules that leave a value's type as it is (minimum, minLength, minItems,
// maxItems, uniqueItems, pattern, format, not: checked for their shape only); anything else
// is refused, so a new keyword cannot be silently mistyped.
// Mapping: {} -> JSONValue; integer/number -> number; enum/const -> literal unions; an object
// with properties is closed unless additionalProperties says otherwise; a property-less
// object without additionalProperties: false is a map of JSONValue. Component schemas keep
// their names, except names of JavaScript globals (Object -> WireObject); method types are
// the method name in PascalCase plus Params / Result (context/insert -> ContextInsertParams).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const TOOLS = dirname(fileURLToPath(import.meta.url));
export const JS_ROOT = dirname(TOOLS);
export const REPO_ROOT = dirname(dirname(JS_ROOT));
export const DEFAULT_DOC = join(REPO_ROOT, 'clients', 'openrpc.json');
export const DEFAULT_OUT = join(JS_ROOT, 'index.d.ts');
export const TEMPLATE = join(TOOLS, 'index.d.ts.in');
const MARKER = '// @@GENERATED_WIRE_TYPES@@';

const KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'oneOf', '$ref', 'description', 'title']);
// Rules on values that do not change their TypeScript type: the shape each must have.
const RULES = {
  minimum: (v) => typeof v === 'number',
  minLength: (v) => Number.isInteger(v) && v >= 0,
  minItems: (v) => Number.isInteger(v) && v >= 0,
  maxItems: (v) => Number.isInteger(v) && v >= 0,
  uniqueItems: (v) => typeof v === 'boolean',
  pattern: (v) => typeof v === 'string',
  format: (v) => typeof v === 'string',
  not: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
};
const TYPES = new Set(['string', 'integer', 'number', 'boolean', 'null', 'object', 'array']);
const STRUCTURAL = ['type', 'properties', 'required', 'additionalProperties', 'items'];
const REF_PREFIX = '#/components/schemas/';
// Names a component must not take: they would shadow these globals inside index.d.ts.
const GLOBALS = new Set(['Object', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'Function', 'Date', 'Error', 'Promise', 'Map', 'Set', 'Record', 'Partial', 'Required', 'Readonly', 'Pick', 'Omit', 'Exclude', 'Extract', 'JSON', 'Buffer', 'RegExp', 'BigInt', 'Math']);

export class SchemaError extends Error {}

/** The TypeScript name of component schema `name`. */
export function componentTypeName(name) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new SchemaError(`component name ${JSON.stringify(name)} is not an identifier`);
  return GLOBALS.has(name) || name === 'JSONValue' ? `Wire${name}` : name;
}

/** 'controller/didChangeObject' -> 'ControllerDidChangeObject', 'rpc.discover' -> 'RpcDiscover'. */
export function methodTypeName(method) {
  const parts = method.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (!parts.length || /^[0-9]/.test(parts[0])) throw new SchemaError(`method name ${JSON.stringify(method)} gives no type name`);
  return parts.map((p) => p[0].toUpperCase() + p.slice(1)).join('');
}

const isIdentifier = (key) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key);
const propertyName = (key) => (isIdentifier(key) ? key : JSON.stringify(key));
const literal = (value) => JSON.stringify(value);

function docComment(schema, indent) {
  const parts = [schema.title, schema.description].filter((s) => typeof s === 'string' && s.length);
  if (!parts.length) return '';
  const text = parts.join(': ').replaceAll('*/', '*\\/');
  const lines = text.split('\n');
  if (lines.length === 1) return `${indent}/** ${text} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

/** Converts schemas of one document to TypeScript type expressions. */
class Converter {
  constructor(schemas) {
    this.schemas = schemas;
  }

  check(schema, where) {
    if (schema === true) return;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new SchemaError(`${where}: a schema must be an object, got ${JSON.stringify(schema)}`);
    for (const key of Object.keys(schema)) {
      if (Object.hasOwn(RULES, key)) {
        if (!RULES[key](schema[key])) throw new SchemaError(`${where}: ${key} ${JSON.stringify(schema[key])} is not valid`);
        continue;
      }
      if (!KEYWORDS.has(key)) throw new SchemaError(`${where}: keyword ${JSON.stringify(key)} is outside the supported schema subset`);
    }
  }

  type(schema, where, indent = '') {
    this.check(schema, where);
    if (schema === true) return 'JSONValue';
    if ('$ref' in schema) {
      const ref = schema.$ref;
      if (typeof ref !== 'string' || !ref.startsWith(REF_PREFIX)) throw new SchemaError(`${where}: unsupported $ref ${JSON.stringify(ref)}`);
      const name = ref.slice(REF_PREFIX.length);
      if (!Object.hasOwn(this.schemas, name)) throw new SchemaError(`${where}: $ref to unknown schema ${name}`);
      return componentTypeName(name);
    }
    if ('const' in schema) return literal(schema.const);
    if ('enum' in schema) {
      if (!Array.isArray(schema.enum) || !schema.enum.length) throw new SchemaError(`${where}: enum must be a non-empty array`);
      return schema.enum.map(literal).join(' | ');
    }
    if ('oneOf' in schema) {
      if (!Array.isArray(schema.oneOf) || !schema.oneOf.length) throw new SchemaError(`${where}: oneOf must be a non-empty array`);
      const union = schema.oneOf.map((s, i) => this.type(s, `${where}.oneOf[${i}]`, indent)).join(' | ');
      const hasBase = STRUCTURAL.some((k) => k in schema);
      if (!hasBase) return union;
      const { oneOf, ...base } = schema;
      return `${wrap(this.type(base, where, indent))} & (${union})`;
    }
    let types = schema.type;
    if (types === undefined) {
      if ('properties' in schema || 'additionalProperties' in schema || 'required' in schema) types = 'object';
      else if ('items' in schema) types = 'array';
      else return 'JSONValue';
    }
    if (Array.isArray(types)) {
      if (!types.length) throw new SchemaError(`${where}: type must not be an empty array`);
      return types.map((t) => wrap(this.single(t, schema, where, indent))).join(' | ');
    }
    return this.single(types, schema, where, indent);
  }

  single(type, schema, where, indent) {
    if (!TYPES.has(type)) throw new SchemaError(`${where}: unknown type ${JSON.stringify(type)}`);
    switch (type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array': {
        const item = schema.items === undefined ? 'JSONValue' : this.type(schema.items, `${where}.items`, indent);
        return /^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      default:
        return this.object(schema, where, indent);
    }
  }

  object(schema, where, indent) {
    const properties = schema.properties ?? {};
    if (typeof properties !== 'object' || Array.isArray(properties)) throw new SchemaError(`${where}: properties must be an object`);
    const required = schema.required ?? [];
    if (!Array.isArray(required)) throw new SchemaError(`${where}: required must be an array`);
    const extra = schema.additionalProperties;
    let index = null;
    if (extra === true) index = 'JSONValue';
    else if (extra !== undefined && extra !== false) index = this.type(extra, `${where}.additionalProperties`, indent);
    const names = [...Object.keys(properties), ...required.filter((k) => !Object.hasOwn(properties, k))];
    if (!names.length) {
      if (index) return `{ [key: string]: ${index} }`;
      return extra === false ? 'Record<string, never>' : '{ [key: string]: JSONValue }';
    }
    const inner = `${indent}  `;
    const lines = names.map((key) => {
      const prop = properties[key] ?? {};
      const optional = required.includes(key) ? '' : '?';
      const doc = prop === true ? '' : (this.check(prop, `${where}.${key}`), docComment(prop, inner));
      return `${doc}${inner}${propertyName(key)}${optional}: ${this.type(prop, `${where}.${key}`, inner)};`;
    });
    const body = `{\n${lines.join('\n')}\n${indent}}`;
    // An index signature must admit every property's type, so extra keys go in an intersection.
    return index ? `${body} & { [key: string]: ${index} }` : body;
  }
}

const wrap = (t) => (/[|&]/.test(t) && !/^\{[\s\S]*\}$/.test(t) ? `(${t})` : t);

/** An interface for an object schema with properties and no index signature, else a type alias. */
function declare(name, schema, type, comment) {
  const plainObject =
    schema !== true &&
    (schema.type === 'object' || (schema.type === undefined && 'properties' in schema)) &&
    !['$ref', 'const', 'enum', 'oneOf'].some((k) => k in schema) &&
    (schema.additionalProperties === undefined || schema.additionalProperties === false) &&
    type.startsWith('{\n');
  return plainObject ? `${comment}export interface ${name} ${type}\n` : `${comment}export type ${name} = ${type};\n`;
}

/** The generated block: JSONValue, component types, and every method's params and result. */
export function wireTypes(doc) {
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.methods)) throw new SchemaError('not an OpenRPC document: no methods array');
  const schemas = doc.components?.schemas ?? {};
  const conv = new Converter(schemas);
  const taken = new Map();
  const claim = (name, what) => {
    if (taken.has(name)) throw new SchemaError(`${what} and ${taken.get(name)} both map to the type name ${name}`);
    taken.set(name, what);
    return name;
  };
  claim('JSONValue', 'the JSON value type');
  const out = [];
  out.push('/** Any JSON value (the schema {}). */\n');
  out.push('export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };\n');
  out.push('\n// Component schemas (components.schemas).\n');
  for (const [name, schema] of Object.entries(schemas)) {
    const typeName = claim(componentTypeName(name), `component ${name}`);
    conv.check(schema, `components.schemas.${name}`);
    out.push(declare(typeName, schema, conv.type(schema, `components.schemas.${name}`), docComment(schema, '')));
  }
  out.push('\n// Methods: the params object of each, and the result of each request.\n');
  const requests = [];
  const notifications = { serverToClient: [], clientToServer: [] };
  for (const method of doc.methods) {
    const name = method.name;
    if (typeof name !== 'string') throw new SchemaError(`a method without a name: ${JSON.stringify(method).slice(0, 80)}`);
    if (method.paramStructure !== undefined && method.paramStructure !== 'by-name') throw new SchemaError(`${name}: paramStructure ${method.paramStructure} (only by-name is supported)`);
    const base = methodTypeName(name);
    const paramsName = claim(`${base}Params`, `params of ${name}`);
    const properties = {};
    const required = [];
    for (const p of method.params ?? []) {
      if (typeof p.name !== 'string') throw new SchemaError(`${name}: a param without a name`);
      if (Object.hasOwn(properties, p.name)) throw new SchemaError(`${name}: param ${p.name} twice`);
      const schema = p.schema ?? {};
      conv.check(schema, `${name}.params.${p.name}`);
      properties[p.name] = p.description && !schema.description ? { ...schema, description: p.description } : schema;
      if (p.required) required.push(p.name);
    }
    const summary = { description: `${name}${method.summary ? `: ${method.summary}` : ''}` };
    const paramsSchema = { type: 'object', properties, required, additionalProperties: false };
    out.push(declare(paramsName, paramsSchema, conv.type(paramsSchema, `${name}.params`), docComment(summary, '')));
    if ('result' in method) {
      const resultName = claim(`${base}Result`, `result of ${name}`);
      const schema = method.result?.schema ?? {};
      out.push(declare(resultName, schema, conv.type(schema, `${name}.result`), docComment(schema, '')));
      requests.push([name, paramsName, resultName]);
    } else {
      const direction = method['x-direction'] === 'serverToClient' ? 'serverToClient' : 'clientToServer';
      notifications[direction].push([name, paramsName]);
    }
  }
  out.push('\n/** Every request (client to server, answered): its params and its result, by method name. */\n');
  out.push(`export interface Requests {\n${requests.map(([m, p, r]) => `  ${propertyName(m)}: { params: ${p}; result: ${r} };`).join('\n')}\n}\n`);
  out.push('/** Notifications fetchd sends, by method name: their params. */\n');
  out.push(`export interface ServerNotifications {\n${notifications.serverToClient.map(([m, p]) => `  ${propertyName(m)}: ${p};`).join('\n')}\n}\n`);
  out.push('/** Notifications a client may send, by method name: their params. */\n');
  out.push(`export interface ClientNotifications {\n${notifications.clientToServer.map(([m, p]) => `  ${propertyName(m)}: ${p};`).join('\n')}\n}\n`);
  return { text: out.join(''), names: [...taken.keys()] };
}

/** index.d.ts: the template with the generated block in place of its marker line. */
export function generate(doc, template, { docPath = 'clients/openrpc.json' } = {}) {
  const parts = template.split(`${MARKER}\n`);
  if (parts.length !== 2) throw new SchemaError(`the template must hold the line ${MARKER} exactly once`);
  const { text, names } = wireTypes(doc);
  for (const m of parts.join('').matchAll(/^export (?:declare )?(?:class|interface|type|function|const|enum) (\w+)/gm)) {
    if (names.includes(m[1])) throw new SchemaError(`the template declares ${m[1]}, a name the document's types use`);
  }
  const info = doc.info ?? {};
  const header =
    `// GENERATED by clients/js/tools/gen-types.js from ${docPath} (${info.title ?? '?'} ${info.version ?? '?'})\n` +
    '// and clients/js/tools/index.d.ts.in. Do not edit: change those and run\n' +
    '//   node clients/js/tools/gen-types.js\n';
  return `${header}${parts[0]}${text}${parts[1]}`;
}

function main(argv) {
  let docPath = DEFAULT_DOC;
  let outPath = DEFAULT_OUT;
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--check') check = true;
    else if (argv[i] === '--doc') docPath = argv[++i];
    else if (argv[i] === '--out') outPath = argv[++i];
    else {
      process.stderr.write(`gen-types: unknown argument ${argv[i]}\nusage: node clients/js/tools/gen-types.js [--check] [--doc PATH] [--out PATH]\n`);
      return 2;
    }
  }
  const doc = JSON.parse(readFileSync(docPath, 'utf8'));
  const text = generate(doc, readFileSync(TEMPLATE, 'utf8'), { docPath: relative(REPO_ROOT, docPath) });
  if (check) {
    let current = null;
    try {
      current = readFileSync(outPath, 'utf8');
    } catch {}
    if (current === text) return 0;
    process.stderr.write(`gen-types: ${relative(process.cwd(), outPath)} is out of date; run node clients/js/tools/gen-types.js\n`);
    return 1;
  }
  writeFileSync(outPath, text);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
