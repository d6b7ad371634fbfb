// Gives the generated types their spec names in hovers and error messages. openapi-typescript declares every
// component inside one `components` interface and refers to it as `components["schemas"]["Session"]`; its
// `rootTypes` option only adds `export type Session = components["schemas"]["Session"]`, an alias of a type
// declared elsewhere, which TypeScript does not keep: a hover on a session showed the whole object, its fields
// as `components["schemas"][…]`. Here each schema's (response's, request body's) type moves into its root alias
// (`export type Session = { … }`), the `components` member refers to the alias, and every reference becomes the
// alias' name, so a value reads `Session` and its fields `SessionStatus`. A parameter or header reference becomes
// the parameter's own type (`startDate: string`), which reads better than a name of its own.
// Every optional property also takes `undefined` (`limit?: number | undefined`): the SDK treats an undefined field as
// absent, and under `exactOptionalPropertyTypes` a user could otherwise not pass `{ limit: maybeLimit }`
// (openapi-typescript has no option for it: openapi-ts/openapi-typescript#2457).
import ts from "typescript";

const { factory } = ts;
/** The alias names openapi-typescript's rootTypes (with rootTypesNoSchemaPrefix) gives each kind of component. */
const PREFIX = { schemas: "", responses: "Response", requestBodies: "RequestBody", parameters: "Parameter", headers: "Header" };
/** Kinds whose references are replaced by the type itself. */
const INLINED = new Set(["parameters", "headers"]);

/** `components["kind"]["name"]` → [kind, name]; any other type node → undefined. */
function componentRef(node) {
  // rootTypes writes its aliases' target as one identifier, `components['schemas']['Session']`.
  if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) {
    const [, kind, name] = /^components\['(\w+)'\]\['([^']+)'\]$/.exec(node.typeName.text) ?? [];
    return kind in PREFIX ? [kind, name] : undefined;
  }
  if (!ts.isIndexedAccessTypeNode(node) || !ts.isIndexedAccessTypeNode(node.objectType)) return undefined;
  const root = node.objectType.objectType;
  if (!ts.isTypeReferenceNode(root) || !ts.isIdentifier(root.typeName) || root.typeName.text !== "components") return undefined;
  const text = (type) => (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal) ? type.literal.text : undefined);
  const kind = text(node.objectType.indexType);
  const name = text(node.indexType);
  return kind in PREFIX && name !== undefined ? [kind, name] : undefined;
}

const aliasOf = (kind, name) => `${PREFIX[kind]}${name}`;
/** `never` (an operation without that kind of parameter, or without a body) and types that already allow undefined. */
const acceptsUndefined = (type) =>
  type.kind === ts.SyntaxKind.NeverKeyword ||
  type.kind === ts.SyntaxKind.UndefinedKeyword ||
  (ts.isUnionTypeNode(type) && type.types.some(acceptsUndefined));
const isComponents = (statement) => ts.isInterfaceDeclaration(statement) && statement.name.text === "components";
/** The component groups (`schemas`, `parameters`, …) of the `components` interface that hold a type per name. */
const groupsOf = (components) =>
  components.members.filter((group) => group.name.text in PREFIX && group.type && ts.isTypeLiteralNode(group.type));

/** openapi-typescript's statements, with each component type declared under its root alias name. */
export function nameComponentTypes(statements) {
  // Every component's type (references still as written), by alias name.
  const declared = new Map();
  const components = statements.find(isComponents);
  for (const group of components ? groupsOf(components) : []) {
    for (const member of group.type.members) {
      declared.set(aliasOf(group.name.text, member.name.text), { kind: group.name.text, member });
    }
  }
  const rename = (context) => {
    const visit = (node) => {
      if (ts.isPropertySignature(node) && node.questionToken && node.type && !acceptsUndefined(node.type)) {
        const type = factory.createUnionTypeNode([visit(node.type), factory.createKeywordTypeNode(ts.SyntaxKind.UndefinedKeyword)]);
        return factory.updatePropertySignature(node, node.modifiers, node.name, node.questionToken, type);
      }
      const ref = componentRef(node);
      if (!ref) return ts.visitEachChild(node, visit, context);
      const alias = aliasOf(...ref);
      const target = declared.get(alias);
      return target && INLINED.has(ref[0]) ? visit(target.member.type) : factory.createTypeReferenceNode(alias);
    };
    return (node) => ts.visitNode(node, visit);
  };
  const renamed = (node) => ts.transform(node, [rename]).transformed[0];

  return statements.map((statement) => {
    if (isComponents(statement)) {
      // Each member of a named group refers to its alias; the rest is renamed as usual.
      const members = statement.members.map((group) => {
        if (!groupsOf(statement).includes(group) || INLINED.has(group.name.text)) return renamed(group);
        // A new member, so its description stays with the alias (where hovers read it) and is not repeated here.
        const refs = group.type.members.map((member) =>
          factory.createPropertySignature(
            member.modifiers,
            member.name,
            member.questionToken,
            factory.createTypeReferenceNode(aliasOf(group.name.text, member.name.text)),
          ),
        );
        return factory.updatePropertySignature(
          group,
          group.modifiers,
          group.name,
          group.questionToken,
          factory.updateTypeLiteralNode(group.type, refs),
        );
      });
      return factory.updateInterfaceDeclaration(
        statement,
        statement.modifiers,
        statement.name,
        statement.typeParameters,
        statement.heritageClauses,
        members,
      );
    }
    // rootTypes' `export type Session = components['schemas']['Session']` becomes `export type Session = { … }`.
    const target = ts.isTypeAliasDeclaration(statement) && componentRef(statement.type) ? declared.get(statement.name.text) : undefined;
    if (target && !INLINED.has(target.kind)) {
      const alias = factory.updateTypeAliasDeclaration(
        statement,
        statement.modifiers,
        statement.name,
        statement.typeParameters,
        renamed(target.member.type),
      );
      const comments = ts.getSyntheticLeadingComments(target.member);
      if (comments) ts.setSyntheticLeadingComments(alias, comments);
      return alias;
    }
    return renamed(statement);
  });
}
