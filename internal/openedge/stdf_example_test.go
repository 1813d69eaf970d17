package openedge_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// Move a table and its index to new areas; everything else is written back
// as it was read and the trailer offset is recomputed.
func ExampleDF_SetTableArea() {
	src := "ADD TABLE \"Customer\"\n  DUMP-NAME \"customer\"\n\n" +
		"ADD INDEX \"CustNum\" ON \"Customer\"\n  AREA \"Index\"\n  INDEX-FIELD \"CustNum\" ASCENDING\n\n" +
		".\nPSC\ncpstream=UTF-8\n.\n0000000131\n"
	df, err := openedge.ParseDF(strings.NewReader(src), "sports.df")
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = df.SetTableArea("customer", "Cust Data")
	_ = df.SetIndexArea("Customer", "CustNum", "Cust Index")
	_, _ = df.WriteTo(os.Stdout)
	// Output:
	// ADD TABLE "Customer"
	//   AREA "Cust Data"
	//   DUMP-NAME "customer"
	//
	// ADD INDEX "CustNum" ON "Customer"
	//   AREA "Cust Index"
	//   INDEX-FIELD "CustNum" ASCENDING
	//
	// .
	// PSC
	// cpstream=UTF-8
	// .
	// 0000000155
}

// Validate reports every broken rule with its line.
func ExampleStructure_Validate() {
	st := "b .\nd \"Schema Area\":6,32;1 .\nd \"Data\":7,48;8 . f 1024\nd \"Data\":7,48;8 .\nd \"Index\":7,32;64 .\n"
	s, err := openedge.ParseStructure(strings.NewReader(st), "target.st")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Validate())
	// Output:
	// target.st:3: area "Data": records per block 48 is not a power of 2 from 1 to 256
	// target.st:5: area "Index" uses area number 7, already used by area "Data" (line 3)
}
