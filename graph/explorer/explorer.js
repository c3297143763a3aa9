// Starts GraphiQL on /graphql with every file served by the binary itself, so the explorer
// works without internet. A bearer token goes into the Headers tab:
// {"Authorization": "Bearer <token>"}; GraphiQL keeps it in this browser's localStorage.
(function () {
  'use strict';
  var url = location.origin + '/graphql';

  // Deep enough for every type of the schema ([X!]! is three levels) and shallow enough for
  // the depth limit of data queries, should a server refuse GraphiQL's own introspection query.
  var typeRef = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
  var inputValue = 'name description type { ' + typeRef + ' } defaultValue isDeprecated deprecationReason';
  var compactIntrospection = 'query CompactIntrospection { __schema { description ' +
    'queryType { name kind } mutationType { name kind } subscriptionType { name kind } ' +
    'types { kind name description specifiedByURL ' +
    'fields(includeDeprecated: true) { name description args(includeDeprecated: true) { ' + inputValue + ' } ' +
    'type { ' + typeRef + ' } isDeprecated deprecationReason } ' +
    'inputFields(includeDeprecated: true) { ' + inputValue + ' } interfaces { ' + typeRef + ' } ' +
    'enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } ' +
    'possibleTypes { ' + typeRef + ' } } ' +
    'directives { name description isRepeatable locations args(includeDeprecated: true) { ' + inputValue + ' } } } }';

  var plain = GraphiQL.createFetcher({ url: url, enableIncrementalDelivery: false });

  // The schema comes from GraphiQL's standard introspection query; when the server answers
  // it with errors and no schema, the compact query above is asked instead.
  function schemaFetcher(params, opts) {
    return Promise.resolve(plain(params, opts)).then(function (res) {
      if (res && res.data && res.data.__schema) {
        return res;
      }
      return plain({ query: compactIntrospection, operationName: 'CompactIntrospection' }, opts);
    });
  }

  var fetcher = GraphiQL.createFetcher({ url: url, enableIncrementalDelivery: false, schemaFetcher: schemaFetcher });

  var defaultQuery = [
    '# Herdbook GraphQL explorer. Put a bearer token into the Headers tab below:',
    '#   {"Authorization": "Bearer <token>"}',
    '# (herdbook admin token issue prints one). Then run this query with Ctrl-Enter.',
    '{',
    '  viewer { fullName }',
    '  farms(first: 10) { totalCount edges { node { id name species } } }',
    '}',
    ''
  ].join('\n');

  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
      inputValueDeprecation: true
    })
  );
})();
