package store

// AddressClashQuery is addressClashQuery, for the plan test on PostgreSQL
// (an external test: storetest imports this package).
const AddressClashQuery = addressClashQuery
