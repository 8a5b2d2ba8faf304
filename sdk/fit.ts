// `custodian/fit`: the fitting convention for tool authors, as the SDK package
// (clients/typescript, `@custodian/sdk/fit`) exports it: one source, imported from there.
export * from '../clients/typescript/src/fit/index.ts';
