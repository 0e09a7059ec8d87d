"""Take the test R^2 printed by the executed notebook."""
import json, re, sys
nb = json.load(open(sys.argv[1]))
text = "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"])
r2 = float(re.search(r"test R\^2 = (\S+)", text).group(1))
json.dump({"test_r2": r2}, open("results.json", "w"))
print("test_r2", r2)
