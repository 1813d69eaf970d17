package gen

import (
	"math"
)

// The sports profile is the sports2000 demo database every OpenEdge DBA
// knows: the same tables, fields and main indexes, in its seven areas
// (Type I, 32 records per block). Lookup tables keep their size (there are
// 51 states at any scale); the others grow together so that the records
// add up to the scale.

const sportsST = `#
b .
#
d "Schema Area":6,32;1 .
#
d "Employee":7,32;1 .
d "Inventory":8,32;1 .
d "Cust_Data":9,32;1 .
d "Cust_Index":10,32;1 .
d "Order":11,32;1 .
d "Misc":12,32;1 .
`

var (
	stateCodes = []string{"AK", "AL", "AR", "AZ", "CA", "CO", "CT", "DC", "DE", "FL", "GA", "HI", "IA", "ID", "IL", "IN", "KS", "KY", "LA", "MA", "MD", "ME", "MI", "MN", "MO", "MS", "MT", "NC", "ND", "NE", "NH", "NJ", "NM", "NV", "NY", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VA", "VT", "WA", "WI", "WV", "WY"}
	stateNames = []string{"Alaska", "Alabama", "Arkansas", "Arizona", "California", "Colorado", "Connecticut", "District of Columbia", "Delaware", "Florida", "Georgia", "Hawaii", "Iowa", "Idaho", "Illinois", "Indiana", "Kansas", "Kentucky", "Louisiana", "Massachusetts", "Maryland", "Maine", "Michigan", "Minnesota", "Missouri", "Mississippi", "Montana", "North Carolina", "North Dakota", "Nebraska", "New Hampshire", "New Jersey", "New Mexico", "Nevada", "New York", "Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Virginia", "Vermont", "Washington", "Wisconsin", "West Virginia", "Wyoming"}
	regions    = []string{"East", "West", "Central", "South", "North"}
	reps       = []string{"BBB", "DKP", "DOS", "GPE", "HXM", "JAL", "RDR", "SLS", "SWH"}
	countries  = []string{"USA", "Finland", "France", "Germany", "United Kingdom", "Italy", "Sweden", "Austria", "Netherlands", "Canada"}
	cities     = []string{"Boston", "Burlington", "Chicago", "Atlanta", "Denver", "Dallas", "Helsinki", "Paris", "Berlin", "London", "Milano", "Stockholm", "Wien", "Amsterdam", "Toronto", "Bedford"}
	terms      = []string{"Net30", "Net60", "COD", "Net10"}
	deptCodes  = []string{"100", "200", "300", "400", "500", "600", "700"}
	deptNames  = []string{"Consulting", "Sales", "Finance", "Training", "Development", "Support", "Administration"}
	positions  = []string{"Sales Rep", "Engineer", "Manager", "Consultant", "Accountant", "Trainer", "Director"}
	orderStats = []string{"Shipped", "Ordered", "Back Ordered", "Partially Shipped"}
	lineStats  = []string{"Shipped", "Ordered", "Back Ordered"}
	carriers   = []string{"UPS", "FlyByNight", "Walkin", "Standard Mail", "Fedex"}
	cards      = []string{"Visa", "American Express", "Master Card"}
	categories = []string{"Golf", "Tennis", "Running", "Swimming", "Fitness", "Team Sports", "Winter Sports", "Water Sports"}
	relations  = []string{"Spouse", "Child", "Parent"}
	healthCare = []string{"HMO", "Blue Cross", "PPO", ""}
)

// sportsTable is a sports2000 table before scaling.
type sportsTable struct {
	spec  *tableSpec
	base  int64 // records in sports2000
	fixed bool  // a lookup table that does not grow
}

func sportsTables() []sportsTable {
	ki := func(n string) col { return col{name: n, typ: "integer", kind: kKeyInt} }
	kp := func(n string) col { return col{name: n, typ: "integer", kind: kKeyInt, part: 1} }
	ref := func(n string, card int64) col {
		return col{name: n, typ: "integer", kind: kRefInt, card: card, skew: 2, base: 1}
	}
	en := func(n string, l []string) col { return col{name: n, typ: "character", kind: kEnum, list: l, skew: 2} }
	tx := func(n string, w int) col { return col{name: n, typ: "character", kind: kText, weight: w} }
	// name is a short text, as the x(20)..x(35) fields of sports2000.
	name := func(n string, maxLen int) col {
		return col{name: n, typ: "character", kind: kText, weight: 1, maxLen: maxLen}
	}
	dt := func(n string) col { return col{name: n, typ: "date", kind: kDate} }
	am := func(n string) col { return col{name: n, typ: "decimal", kind: kAmount} }
	qt := func(n string) col { return col{name: n, typ: "integer", kind: kQty} }
	em := func(n string) col { return col{name: n, typ: "character", kind: kEmpty} }
	phone := func(n string) col {
		return col{name: n, typ: "character", kind: kRefCode, prefix: "(617) 555-", card: 9000, skew: 1, width: 4}
	}
	post := func(n string) col {
		return col{name: n, typ: "character", kind: kRefCode, card: 90000, skew: 1.5, width: 5}
	}
	pk := func(name string, fields ...string) idxSpec {
		return idxSpec{name: name, fields: fields, unique: true, primary: true}
	}
	ix := func(name string, fields ...string) idxSpec { return idxSpec{name: name, fields: fields} }
	word := func(name, field string) idxSpec { return idxSpec{name: name, fields: []string{field}, word: true} }
	address := []col{name("Address", 35), em("Address2"), en("City", cities), en("State", stateCodes), post("PostalCode")}
	with := func(cs []col, more ...col) []col { return append(append([]col{}, cs...), more...) }

	t := func(name, area string, base int64, fixed bool, mean int, key keyShape, cols []col, idx ...idxSpec) sportsTable {
		if key.base == 0 {
			key.base = 1
		}
		idxArea := area
		if area == "Cust_Data" {
			idxArea = "Cust_Index"
		}
		return sportsTable{spec: &tableSpec{name: name, area: area, idxArea: idxArea, mean: mean, key: key, cols: cols, indexes: idx, sizeVary: 0.3}, base: base, fixed: fixed}
	}
	return []sportsTable{
		t("Benefits", "Employee", 55, false, 0, keyShape{},
			[]col{ki("EmpNum"), en("HealthCare", healthCare), qt("LifeInsurance"), qt("MedicalSpendingAcct"), qt("DependentCare"), qt("StockPurchase")},
			pk("EmpNo", "EmpNum")),
		t("BillTo", "Cust_Data", 6, false, 180, keyShape{r1: 2},
			with([]col{ki("CustNum"), kp("BillToID"), name("Name", 30)}, append(address, name("Contact", 30), phone("Phone"))...),
			pk("custnumbillto", "CustNum", "BillToID")),
		t("Bin", "Inventory", 770, false, 0, keyShape{},
			[]col{ref("WarehouseNum", 14), ki("BinNum"), ref("ItemNum", 55), qt("Qty"), en("BinName", locs)},
			pk("BinNum", "BinNum"), ix("ItemNum", "ItemNum"), ix("WarehouseNumItemNum", "WarehouseNum", "ItemNum")),
		t("Customer", "Cust_Data", 1117, false, 260, keyShape{},
			with([]col{ki("CustNum"), en("Country", countries), name("Name", 30)}, append(address,
				name("Contact", 30), phone("Phone"), en("SalesRep", reps), am("CreditLimit"), am("Balance"),
				en("Terms", terms), qt("Discount"), tx("Comments", 3), em("Fax"), em("EmailAddress"))...),
			pk("CustNum", "CustNum"), word("Comments", "Comments"), ix("CountryPost", "Country", "PostalCode"),
			ix("Name", "Name"), ix("SalesRep", "SalesRep")),
		t("Department", "Employee", 7, true, 0, keyShape{},
			[]col{{name: "DeptCode", typ: "character", kind: kKeyCode, list: deptCodes}, {name: "DeptName", typ: "character", kind: kKeyCode, list: deptNames}},
			pk("DeptCode", "DeptCode")),
		t("Employee", "Employee", 55, false, 160, keyShape{},
			with([]col{ki("EmpNum"), name("LastName", 25), name("FirstName", 15)}, append(address,
				phone("HomePhone"), phone("WorkPhone"), en("DeptCode", deptCodes), en("Position", positions),
				dt("Birthdate"), dt("StartDate"), qt("VacationDaysLeft"), qt("SickDaysLeft"))...),
			pk("EmpNo", "EmpNum"), ix("DeptCode", "DeptCode"), ix("Name", "LastName", "FirstName")),
		t("Family", "Employee", 72, false, 0, keyShape{r1: 2},
			[]col{ki("EmpNum"), {name: "RelativeName", typ: "character", kind: kKeyCode, part: 1, list: []string{"Alex", "Sam"}},
				en("Relation", relations), dt("Birthdate"), {name: "CoveredOnBenefits", typ: "logical", kind: kFlag, prob: 0.7}, dt("BenefitDate")},
			pk("EmpNoRelativeName", "EmpNum", "RelativeName")),
		t("Feedback", "Misc", 20, false, 300, keyShape{},
			[]col{{name: "Contact", typ: "character", kind: kKeyCode, prefix: "C", width: 5}, name("Company", 30), em("EmailAddress"),
				phone("Phone"), em("Fax"), tx("Comments", 4), en("Department", deptNames), qt("Rating")},
			pk("Contact", "Contact"), word("Comments", "Comments"), ix("Company", "Company"), ix("Department", "Department"), ix("Rating", "Rating")),
		t("InventoryTrans", "Inventory", 75, false, 0, keyShape{},
			[]col{ki("InvTransNum"), ref("WarehouseNum", 14), ref("BinNum", 770), qt("Qty"), ref("ItemNum", 55), dt("TransDate"),
				en("InvType", []string{"Receipt", "Issue", "Transfer", "Adjust"}), ref("PONum", 2000), ref("OrderNum", 3953),
				{name: "Transtime", typ: "character", kind: kRefCode, card: 2400, skew: 1, width: 4}},
			pk("InvTransNum", "InvTransNum"), ix("ItemNum", "ItemNum"), ix("WarehouseNum", "WarehouseNum")),
		t("Invoice", "Order", 147, false, 0, keyShape{},
			[]col{ki("Invoicenum"), ref("CustNum", 1117), dt("InvoiceDate"), am("Amount"), am("TotalPaid"), am("Adjustment"), ref("OrderNum", 3953), am("ShipCharge")},
			pk("InvoiceNum", "Invoicenum"), ix("CustNum", "CustNum"), ix("InvoiceDate", "InvoiceDate"), ix("OrderNum", "OrderNum")),
		t("Item", "Inventory", 55, false, 320, keyShape{},
			[]col{ki("ItemNum"), name("ItemName", 25), am("Price"), qt("Onhand"), qt("Allocated"), qt("ReOrder"), qt("OnOrder"), qt("CatPage"),
				tx("CatDescription", 5), en("Category1", categories), en("Category2", categories), em("Special"), am("Weight"), qt("MinQty")},
			pk("ItemNum", "ItemNum"), word("CatDescription", "CatDescription"), ix("Category2ItemName", "Category2", "ItemName"),
			ix("CategoryItemName", "Category1", "ItemName"), word("ItemName", "ItemName")),
		t("LocalDefault", "Misc", 10, true, 0, keyShape{},
			[]col{ki("LocalDefNum"), en("Country", countries), en("Region1Label", []string{"State", "Province", "County"}),
				en("Region2Label", []string{"", "Region"}), en("PostalLabel", []string{"Zip Code", "Postal Code"}),
				en("PostalFormat", []string{"99999", "X9X 9X9", "99 999"}), en("TelFormat", []string{"(999) 999-9999", "99-999 999"}),
				en("DateFormat", []string{"mdy", "dmy", "ymd"}), en("CurrencySymbol", []string{"$", "EUR", "GBP", "SEK"})},
			pk("localdefnum", "LocalDefNum")),
		t("Order", "Order", 3953, false, 150, keyShape{},
			[]col{ki("Ordernum"), ref("CustNum", 1117), dt("OrderDate"), {name: "ShipDate", typ: "date", kind: kUnknownDate, prob: 0.8},
				dt("PromiseDate"), en("Carrier", carriers), name("Instructions", 50), em("PO"), en("Terms", terms), en("SalesRep", reps),
				qt("BillToID"), qt("ShipToID"), en("OrderStatus", orderStats), ref("WarehouseNum", 14), en("Creditcard", cards)},
			pk("OrderNum", "Ordernum"), idxSpec{name: "CustOrder", fields: []string{"CustNum", "Ordernum"}, unique: true},
			ix("OrderDate", "OrderDate"), ix("OrderStatus", "OrderStatus"), ix("SalesRep", "SalesRep")),
		t("OrderLine", "Order", 13970, false, 0, keyShape{r1: 4},
			[]col{ki("Ordernum"), kp("Linenum"), ref("ItemNum", 55), am("Price"), qt("Qty"), qt("Discount"), am("ExtendedPrice"), en("OrderLineStatus", lineStats)},
			pk("orderline", "Ordernum", "Linenum"), ix("itemnum", "ItemNum"), ix("OrderLineStatus", "OrderLineStatus")),
		t("POLine", "Inventory", 5700, false, 0, keyShape{r1: 3},
			[]col{ki("Ponum"), kp("Linenum"), ref("ItemNum", 55), am("Price"), qt("Qty"), qt("Discount"), am("ExtendedPrice"), en("POLineStatus", lineStats)},
			pk("POLine", "Ponum", "Linenum")),
		t("PurchaseOrder", "Inventory", 2000, false, 0, keyShape{},
			[]col{ki("PONum"), dt("DateEntered"), ref("SupplierIDNum", 10), {name: "ReceiveDate", typ: "date", kind: kUnknownDate, prob: 0.6},
				en("POStatus", []string{"Received", "Ordered", "Open"})},
			pk("PONum", "PONum"), ix("SupplierID", "SupplierIDNum")),
		t("RefCall", "Misc", 13, false, 400, keyShape{},
			[]col{{name: "CallNum", typ: "character", kind: kKeyCode, prefix: "C", width: 6}, ref("CustNum", 1117), dt("CallDate"),
				en("SalesRep", reps), em("Parent"), tx("Txt", 1)},
			pk("CallNum", "CallNum"), ix("CustNum", "CustNum"), word("Txt", "Txt")),
		t("Salesrep", "Misc", 9, true, 0, keyShape{},
			[]col{{name: "SalesRep", typ: "character", kind: kKeyCode, list: reps}, {name: "RepName", typ: "character", kind: kKeyCode, list: []string{"Brawn , Bubba B.", "Pitt , Dirk K.", "Donovan , Sean", "Ernest , Gary P.", "Morrison , Harold", "Lightfoot , Jan A.", "Rod , Rodney D.", "Smith , Sally", "Swift , Sam W."}},
				en("Region", regions), {name: "MonthQuota", typ: "integer", kind: kAmountArray, extent: 12}},
			pk("SalesRep", "SalesRep")),
		t("ShipTo", "Cust_Data", 38, false, 220, keyShape{r1: 2},
			with([]col{ki("CustNum"), kp("ShipToID"), name("Contact", 30)}, append(address, phone("Phone"), tx("Comments", 2), name("Name", 30))...),
			pk("custnumshipto", "CustNum", "ShipToID")),
		t("State", "Misc", 51, true, 0, keyShape{},
			[]col{{name: "State", typ: "character", kind: kKeyCode, list: stateCodes}, {name: "StateName", typ: "character", kind: kKeyCode, list: stateNames}, en("Region", regions)},
			pk("State", "State")),
		t("Supplier", "Inventory", 10, false, 300, keyShape{},
			with([]col{ki("SupplierIDNum"), name("Name", 30)}, append(address, en("Country", countries), phone("Phone"), em("Email"),
				em("Password"), col{name: "LoginDate", typ: "date", kind: kUnknownDate, prob: 0.5}, tx("Comments", 3), am("ShipAmount"))...),
			pk("SupplierID", "SupplierIDNum")),
		t("SupplierItemXref", "Inventory", 46, false, 0, keyShape{r1: 5},
			[]col{ki("SupplierIDNum"), kp("ItemNum")},
			pk("SupplieridItemNum", "SupplierIDNum", "ItemNum"), ix("ItemNumSupplierID", "ItemNum", "SupplierIDNum")),
		t("TimeSheet", "Employee", 20, false, 0, keyShape{r1: 20},
			[]col{ki("EmpNum"), {name: "DayRecorded", typ: "date", kind: kKeyDate, part: 1, step: 1}, en("TypeRecorded", []string{"Regular", "Vacation", "Sick"}),
				en("AMTimeIn", []string{"08:00", "08:30", "09:00"}), en("AMTimeOut", []string{"12:00", "12:30"}),
				en("PMTimeIn", []string{"13:00", "13:30"}), en("PMTimeOut", []string{"17:00", "17:30", "18:00"}), am("RegularHours"), am("OvertimeHours")},
			pk("EmpNoDayRecorded", "EmpNum", "DayRecorded")),
		t("Vacation", "Employee", 12, false, 0, keyShape{r1: 3},
			[]col{ki("EmpNum"), {name: "StartDate", typ: "date", kind: kKeyDate, part: 1, step: 30}, dt("EndDate")},
			pk("EmpNoStartDate", "EmpNum", "StartDate")),
		t("Warehouse", "Inventory", 14, true, 200, keyShape{},
			with([]col{ki("WarehouseNum"), name("WarehouseName", 30), en("Country", countries)}, append(address, phone("Phone"))...),
			pk("warehousenum", "WarehouseNum"), ix("warehousename", "WarehouseName")),
	}
}

func buildSports(scale int64, seed uint64) (*Database, error) {
	tables := sportsTables()
	var fixedBytes, growBytes float64
	for _, st := range tables {
		s := st.spec
		s.records = st.base
		// Measured, not assumed: capped names and fixed fields make the
		// size a profile aims at only approximate.
		s.mean = max(sampleMean(s), 1)
		b := float64(st.base) * float64(s.mean)
		if st.fixed {
			fixedBytes += b
		} else {
			growBytes += b
		}
	}
	f := max(float64(scale)-fixedBytes, 0) / growBytes
	var specs []*tableSpec
	for _, st := range tables {
		if !st.fixed {
			st.spec.records = int64(math.Round(float64(st.base) * f))
		}
		specs = append(specs, st.spec)
	}
	db, err := assemble("sports", sportsST, specs, seed)
	if err != nil {
		return nil, err
	}
	db.Sequences = []Sequence{{Name: "NextCustNum", Current: db.Table("Customer").lastKey}, {Name: "NextOrdNum", Current: db.Table("Order").lastKey}, {Name: "NextInvNum", Current: db.Table("Invoice").lastKey}}
	return db.finish(), nil
}

// sampleMean measures the mean encoded size of the first 500 rows of a
// table.
func sampleMean(s *tableSpec) int {
	g := newRowGen(s, 0, 0)
	var n, total int
	for r := range g.rows {
		total += EncodedSize(r)
		if n++; n == 500 {
			break
		}
	}
	return max(total/max(n, 1), 1)
}
