// Type names for graphql-codegen: pascalCase, as codegen's default, except that the GraphQL
// type Record becomes FarmRecord, so it never shadows TypeScript's own Record<K, V> in a
// module that imports the generated types. The schema keeps the name Record (clients'
// fragments `... on Record` and __typename checks keep working); docs/decisions.md says why.
const { pascalCase } = require('change-case-all');

const renamed = { Record: 'FarmRecord' };

module.exports = (name) => renamed[name] ?? pascalCase(name);
