package gen

// The tables of the erp profile. The big ones are named after the tables of
// the seed's 14 GB QAD database (xxext_xref 3.7G, gltmp_det 1.3G, gltr_hist
// 1G, glec_det 1G) and the QAD tables that are usually next in line; the
// long tail takes real QAD table names first, then invented ones built from
// QAD-style stems, with the custom "xx" tables a real site accumulates.

// bigTable is a table that holds a fixed share of the database.
type bigTable struct {
	name  string
	share float64 // of all the bytes
	mean  int     // mean record size (bytes)
}

// topTables hold about half of the bytes, like the four tables over 1 GB of
// the seed's database.
var topTables = []bigTable{
	{"xxext_xref", 0.264, 214},
	{"gltmp_det", 0.093, 94},
	{"gltr_hist", 0.072, 208},
	{"glec_det", 0.071, 110},
}

// midTables hold about 40% of the bytes between them; the shares below are
// relative and normalised to midShare.
var midTables = []bigTable{
	{"tr_hist", 5.5, 380},
	{"idh_hist", 3.5, 420},
	{"tx2d_det", 3.0, 260},
	{"sod_det", 3.0, 700},
	{"prh_hist", 2.5, 480},
	{"wod_det", 2.5, 300},
	{"ih_hist", 2.0, 600},
	{"ld_det", 2.0, 150},
	{"pod_det", 2.0, 650},
	{"abs_mstr", 1.8, 324},
	{"mrp_det", 1.5, 150},
	{"pt_mstr", 1.5, 1200},
	{"wr_route", 1.5, 450},
	{"cmt_det", 1.2, 1000},
	{"glt_det", 1.2, 230},
	{"so_mstr", 1.2, 900},
	{"sct_det", 1.2, 310},
	{"wo_mstr", 1.2, 700},
	{"ar_mstr", 1.2, 420},
	{"ard_det", 1.0, 123},
	{"in_mstr", 1.0, 520},
	{"spt_det", 1.0, 90},
	{"opgl_det", 1.0, 140},
	{"absd_det", 0.8, 116},
	{"ad_mstr", 0.8, 750},
	{"ptp_det", 0.8, 1100},
	{"po_mstr", 0.8, 800},
	{"usrw_wkfl", 0.6, 400},
	{"cm_mstr", 0.4, 1350},
	{"qad_wkfl", 0.4, 350},
	{"sch_mstr", 0.4, 180},
	{"ap_mstr", 0.3, 168},
	{"vd_mstr", 0.2, 1100},
	{"absc_det", 0.08, 61},
	{"acd_det", 0.06, 97},
	{"xxdoc_mstr", 0.3, 2000},
	{"xxedi_det", 0.3, 900},
}

const (
	midShare  = 0.40
	tailShare = 1 - midShare - 0.264 - 0.093 - 0.072 - 0.071
)

// qadTables are real QAD table names for the long tail.
var qadTables = []string{
	"ac_mstr", "acm_mstr", "absr_det", "absl_det", "aa_mstr", "ad_ctrl", "al_mstr", "an_mstr", "anl_det",
	"apc_ctrl", "arc_ctrl", "ba_mstr", "bk_mstr", "bl_ctrl", "bom_mstr", "ca_mstr", "cal_det", "cc_mstr",
	"cd_det", "ch_mstr", "ck_mstr", "ckd_det", "cls_mstr", "cmf_mstr", "cncix_mstr", "cncu_mstr", "code_mstr",
	"co_ctrl", "cp_mstr", "cph_hist", "cr_mstr", "cs_mstr", "ct_mstr", "cu_mstr", "cust_ref", "dc_mstr",
	"dom_mstr", "dpc_mstr", "ds_det", "dsd_det", "dss_mstr", "dy_mstr", "ea_mstr", "ecm_mstr", "egd_det",
	"emp_mstr", "emc_ctrl", "en_mstr", "eu_mstr", "ex_mstr", "exr_rate", "exru_usage", "fa_mstr", "fab_det",
	"fact_ctrl", "fc_mstr", "fcs_sum", "flsc_mstr", "flp_mstr", "fm_mstr", "fr_mstr", "ft_mstr", "gl_ctrl",
	"glc_cal", "glcd_det", "gld_det", "glr_mstr", "gr_mstr", "ib_det", "icc_ctrl", "ie_mstr", "iec_ctrl",
	"ied_det", "iq_mstr", "is_mstr", "isd_det", "lad_det", "lbl_mstr", "lgd_mstr", "ln_mstr", "loc_mstr",
	"lot_mstr", "lotw_wkfl", "mfc_ctrl", "mfsd_det", "mrpc_ctrl", "msg_mstr", "mu_mstr", "opm_mstr",
	"pc_mstr", "pcc_mstr", "pi_mstr", "pic_ctrl", "pih_hist", "pk_det", "pl_mstr", "poc_ctrl", "ppt_mstr",
	"prd_det", "ps_mstr", "pt_hist", "ptc_det", "pts_det", "pvo_mstr", "pvod_det", "qc_mstr", "qo_mstr",
	"qod_det", "rps_mstr", "rq_mstr", "rqd_det", "sa_mstr", "sb_mstr", "sbc_mstr", "sc_mstr", "schd_det",
	"si_mstr", "soc_ctrl", "sp_mstr", "sr_wkfl", "src_ctrl", "svc_ctrl", "tx2_mstr", "txe_mstr", "txed_det",
	"txc_ctrl", "um_mstr", "usr_mstr", "vdc_ctrl", "vec_mstr", "vepd_det", "ves_mstr", "vp_mstr", "wc_mstr",
	"wlrn_mstr", "woc_ctrl", "wr_ref", "ws_mstr", "xxet_mstr", "xxpp_mstr", "df_mstr", "dsd_det", "cmc_ctrl",
}

// awkwardTables are names a migration tool must quote and escape: legal in
// OpenEdge, hostile to shells and regexes.
var awkwardTables = []string{"xxrpn-amend", "xx-sls_hist"}

// stems and suffixes make further names when the real ones run out.
var (
	stems = []string{
		"ab", "abd", "acd", "adr", "alc", "apr", "asn", "bal", "bdl", "bkd", "blc", "cct", "cdr", "cft",
		"chg", "cld", "cmd", "cnt", "cpd", "crd", "csd", "ctr", "cxd", "dcd", "ddt", "dlv", "dpr", "drp",
		"dsr", "ecd", "edi", "eff", "emr", "eqp", "esd", "fcd", "fdr", "fld", "frc", "fsd", "gcd", "gld",
		"gpd", "hdr", "icd", "idt", "imp", "ird", "itm", "kbd", "lbr", "lcd", "lnd", "lpd", "mcd", "mfd",
		"mpd", "msd", "ncd", "nrd", "obd", "ocd", "opd", "ord", "pcd", "pdr", "pgd", "pjd", "pkd", "pld",
		"prc", "psd", "qcd", "qpd", "rcd", "rdr", "rmd", "rnd", "rsd", "rtd", "scd", "sdr", "sfd", "shd",
		"sld", "smd", "snd", "spd", "srd", "std", "tcd", "tdr", "tld", "tpd", "trd", "usd", "vcd", "vsd",
		"wcd", "wkd", "wpd", "wsd",
	}
	suffixes = []string{"_mstr", "_det", "_det", "_mstr", "_hist", "_ctrl", "_wkfl", "_ref", "_xref"}
)
