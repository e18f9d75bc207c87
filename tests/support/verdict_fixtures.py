"""The verdict fixture of the reference domain (``FIXTURE``, 14 verdicts), its query, the true match
and the two decoys — built so that a test cannot pass by construction: the true match shares the
query's structured fields but not one word of its description; the decoys copy the wording but
none of the structure."""

from __future__ import annotations

QUERY = {
    "fields": {
        "cost_codes": ["FAC-ENERGY", "FAC-HVAC", "UTIL-ELEC"],
        "measure_type": "renegotiation",
        "claimed_saving": 45000,
    },
    "description": "Renegotiate the supplier contract at the headquarters site to lower our annual spend",
}
TRUE_MATCH = "v-07-tariff"
DECOYS = ("v-02-catering", "v-11-travel")


def _v(id, codes, mtype, saving, description, decision="approve"):
    return {
        "id": id,
        "fields": {"cost_codes": codes, "measure_type": mtype, "claimed_saving": saving},
        "decision": decision,
        "rationale": f"Reviewed {id}: evidence checked against invoices.",
        "description": description,
    }


FIXTURE = [
    _v("v-01-led", ["FAC-ENERGY", "FAC-LIGHT"], "capex", 60000, "Swap fluorescent tubes for LED panels in warehouses"),
    _v(
        "v-02-catering",
        ["FOOD-CATER", "FOOD-VEND"],
        "consolidation",
        800,
        "Renegotiate the supplier contract at the headquarters site to lower our annual spend on catering",
        "reject",
    ),
    _v("v-03-hvac-sched", ["FAC-HVAC"], "scheduling", 9000, "Switch off air handling units during weekends"),
    _v("v-04-print", ["OFF-PRINT"], "renegotiation", 15000, "Fewer printers per floor, lease terms reworked"),
    _v("v-05-fleet", ["FLEET-FUEL", "UTIL-ELEC"], "electrification", 120000, "Replace diesel vans by electric ones"),
    _v("v-06-lease", ["FAC-RENT"], "renegotiation", 300000, "Sublet two empty floors of tower B", "reject"),
    _v(
        "v-07-tariff",
        ["UTIL-ELEC", "FAC-HVAC", "FAC-ENERGY"],
        "renegotiation",
        38000,
        "Lock in cheaper per-kWh tariff with power utility for heating and cooling",
    ),
    _v("v-08-cloud", ["IT-CLOUD", "IT-SAAS"], "rightsizing", 70000, "Downsize idle virtual machines"),
    _v("v-09-solar", ["FAC-ENERGY", "UTIL-ELEC"], "capex", 450000, "Rooftop photovoltaic array on plant roofs"),
    _v("v-10-telecom", ["IT-TELCO"], "renegotiation", 22000, "Mobile plans pooled across business units"),
    _v(
        "v-11-travel",
        ["TRAVEL-AIR"],
        "policy",
        2000000,
        "Renegotiate the supplier contract at our headquarters site to lower annual travel spend",
        "reject",
    ),
    _v("v-12-water", ["UTIL-WATER"], "metering", 30000, "Smart meters detect leaks in cooling towers"),
    _v("v-13-insurance", ["INS-PROP"], "renegotiation", 5000, "Property cover moved to a higher deductible"),
    _v(
        "v-14-bms",
        ["FAC-HVAC", "FAC-ENERGY", "FAC-BMS", "UTIL-GAS"],
        "controls",
        41000,
        "Building management system retuned setpoints",
    ),
]
