# The script that wrote data/support/heldout (answers.jsonl, labels_a.jsonl), kept beside the set it made. Each entry:
# (kind, lang, question, answer, context, [(claim, supported, span(doc, page, text) | None, note), ...])
import json, os

T = True
F = False
E = "expense_policy"; TR = "travel_policy"; IT = "it_security"; PM = "product_manual"
FAQ = "faq_ja"; ON = "onboarding_ja"; PU = "purchase_policy_ja"; TE = "terms_ja"

A = []
def add(kind, lang, q, ans, ctx, claims):
    A.append((kind, lang, q, ans, ctx, claims))

# ---------------------------------------------------------------- verbatim
add("verbatim", "en", "What is the deadline for submitting an expense claim?",
    "Every claim must be submitted in the expense system within 30 days of the date the expense was incurred. A claim submitted later than 30 days is rejected automatically unless the finance team grants an extension in writing.",
    [[E, 3]],
    [("Every claim must be submitted in the expense system within 30 days of the date the expense was incurred.", T,
      (E, 3, "Every claim must be submitted in the expense system within 30 days of the date the expense was incurred."), "copied from 2.1"),
     ("A claim submitted later than 30 days is rejected automatically unless the finance team grants an extension in writing.", T,
      (E, 3, "A claim submitted later than 30 days is rejected automatically unless the finance team grants an extension in writing."), "copied from 2.1")])
add("verbatim", "en", "Which Wi-Fi networks does the Lumo X2 support?",
    "The Lumo X2 connects to 2.4 GHz Wi-Fi networks only. 5 GHz networks are not supported.",
    [[PM, 5], [PM, 6]],
    [("The Lumo X2 connects to 2.4 GHz Wi-Fi networks only.", T, (PM, 5, "The Lumo X2 connects to 2.4 GHz Wi-Fi networks only."), "copied from 3.2"),
     ("5 GHz networks are not supported.", T, (PM, 5, "5 GHz networks are not supported."), "copied from 3.2")])
add("verbatim", "en", "What should I do if my company laptop is stolen?",
    "Report a lost or stolen laptop or phone to the security hotline at extension 4444 immediately, at any hour. The device is wiped remotely.",
    [[IT, 6], [IT, 10], [IT, 4]],
    [("Report a lost or stolen laptop or phone to the security hotline at extension 4444 immediately, at any hour.", T,
      (IT, 6, "Report a lost or stolen laptop or phone to the security hotline at extension 4444 immediately, at any hour."), "copied from 4.3"),
     ("The device is wiped remotely.", T, (IT, 6, "The device is wiped remotely."), "copied from 4.3")])
add("verbatim", "en", "When is first class allowed on trains?",
    "According to the travel policy, first class is allowed on trains for journeys longer than two hours.",
    [[TR, 6]],
    [("First class is allowed on trains for journeys longer than two hours.", T,
      (TR, 6, "First class is allowed on trains for journeys longer than two hours."), "copied from 4.1")])
add("verbatim", "en", "What counts as a receipt under the expense policy?",
    "Under the policy, \"Receipt\" means an itemised proof of payment showing the supplier, the date, the amount and the tax. A card slip that shows only a total is not a receipt for the purposes of this policy.",
    [[E, 2]],
    [("A receipt means an itemised proof of payment showing the supplier, the date, the amount and the tax.", T,
      (E, 2, "\"Receipt\" means an itemised proof of payment showing the supplier, the date, the amount and the tax."), "copied from 1.3"),
     ("A card slip that shows only a total is not a receipt for the purposes of this policy.", T,
      (E, 2, "A card slip that shows only a total is not a receipt for the purposes of this policy."), "copied from 1.3")])
add("verbatim", "en", "How do I reset the thermostat to factory settings?",
    "To restore factory settings, press and hold the ring for 10 seconds until the status light blinks red, then confirm on the display. Note that all schedules are deleted.",
    [[PM, 9]],
    [("To restore factory settings, press and hold the ring for 10 seconds until the status light blinks red, then confirm on the display.", T,
      (PM, 9, "To restore factory settings, press and hold the ring for 10 seconds until the status light blinks red, then confirm on the display."), "copied from 5.3"),
     ("All schedules are deleted by a factory reset.", T, (PM, 9, "All schedules are deleted."), "copied from 5.3")])
add("verbatim", "en", "What does the travel desk do when there is a security incident at my destination?",
    "The travel desk tracks all trips booked in Wayfarer and contacts travellers when there is a security incident at the destination.",
    [[TR, 10], [TR, 3]],
    [("The travel desk tracks all trips booked in Wayfarer and contacts travellers when there is a security incident at the destination.", T,
      (TR, 10, "The travel desk tracks all trips booked in Wayfarer and contacts travellers when there is a security incident at the destination."), "copied from 7.1")])
add("verbatim", "ja", "相見積もりが必要になるのは、いくら以上の購入ですか。",
    "購買規程では、１件あたりの金額が５０万円以上の購入については、原則として３社以上から見積もりを取得しなければならないと定められています。",
    [[PU, 3], [PU, 5]],
    [("１件あたりの金額が５０万円以上の購入については、原則として３社以上から見積もりを取得しなければなりません。", T,
      (PU, 3, "１件あたりの金額が５０万円以上の購入については、原則として３社以上から見積もりを取得しなければならない。"), "copied from 2.2")])
add("verbatim", "ja", "運転履歴はどのくらいの期間保存されますか。",
    "運転履歴は２４か月間保存し、その後削除します。",
    [[TE, 6]],
    [("運転履歴は２４か月間保存し、その後削除します。", T, (TE, 6, "運転履歴は２４か月間保存し、その後削除します。"), "copied from 第11条")])
add("verbatim", "ja", "入社初日は何時に受付へ行けばよいですか。",
    "初日は午前９時３０分に本社１階の受付に来てください。人事部の担当者が入館証をお渡しします。",
    [[ON, 2]],
    [("初日は午前９時３０分に本社１階の受付に来てください。", T, (ON, 2, "初日は午前９時３０分に本社１階の受付に来てください。"), "copied from 2.1"),
     ("人事部の担当者が入館証をお渡しします。", T, (ON, 2, "人事部の担当者が入館証をお渡しします。"), "copied from 2.1")])
add("verbatim", "ja", "病気で休むときはどうすればよいですか。",
    "始業時刻までに上司に連絡してください。５日以上休む場合は診断書が必要です。",
    [[FAQ, 7]],
    [("始業時刻までに上司に連絡してください。", T, (FAQ, 7, "始業時刻までに上司に連絡してください。"), "copied from Q14; short answer, subject (sick leave) from the question"),
     ("５日以上休む場合は診断書が必要です。", T, (FAQ, 7, "５日以上休む場合は診断書が必要です。"), "copied from Q14")])
add("verbatim", "ja", "取引先への支払条件はどうなっていますか。",
    "取引先への支払いは、原則として月末締め翌月末払いとする、と購買規程に定められています。",
    [[PU, 7]],
    [("取引先への支払いは、原則として月末締め翌月末払いです。", T, (PU, 7, "取引先への支払いは、原則として月末締め翌月末払いとする。"), "copied from 4.2")])
add("verbatim", "ja", "Lumo X2の保証期間はどのくらいですか。",
    "購入日から２年間です。",
    [[FAQ, 8]],
    [("購入日から２年間です。", T, (FAQ, 8, "購入日から２年間です。"), "copied from Q16; short answer, subject (Lumo X2 warranty) from the question")])

# ---------------------------------------------------------------- paraphrase
add("paraphrase", "en", "How far ahead must a business trip be requested?",
    "You need to file your trip request in the Wayfarer portal no later than two weeks before you leave.",
    [[TR, 2]],
    [("The trip request must be filed in the Wayfarer portal no later than two weeks before leaving.", T,
      (TR, 2, "Submit a travel request in the Wayfarer portal at least 14 days before departure."), "two weeks = 14 days")])
add("paraphrase", "en", "How long must I keep the paper original of a receipt?",
    "Hold on to the paper original for half a year. During an audit, the finance team may request to see it.",
    [[E, 3], [E, 4]],
    [("The paper original must be kept for half a year.", T, (E, 3, "Keep the paper original for six months; the finance team may ask for it during an audit."), "half a year = six months"),
     ("During an audit, the finance team may request to see the paper original.", T, (E, 3, "Keep the paper original for six months; the finance team may ask for it during an audit."), "same sentence, reworded")])
add("paraphrase", "en", "For how long can SMS codes be used instead of the authenticator app?",
    "SMS codes are only a stopgap: they are accepted as a temporary fallback for one week.",
    [[IT, 3]],
    [("SMS codes are accepted as a temporary fallback for one week.", T,
      (IT, 3, "SMS codes are accepted only as a temporary fallback for seven days."), "one week = seven days")])
add("paraphrase", "en", "Who has to approve an expense claim of 1,500 EUR besides my manager?",
    "A 1,500 EUR claim falls in the band between 500 and 2,000 EUR, so on top of your approver it must also be signed off by the cost-centre owner. A director's approval would only come into play for claims over 2,000 EUR.",
    [[E, 5]],
    [("A 1,500 EUR claim must be signed off by the cost-centre owner on top of the approver.", T,
      (E, 5, "Claims above 500 EUR and up to 2,000 EUR also need the cost-centre owner."), "1,500 lies in the 500-2,000 band"),
     ("Claims over 2,000 EUR require a director's approval.", T, (E, 5, "Claims above 2,000 EUR need the approval of a director."), "reworded")])
add("paraphrase", "en", "After how long does the laptop screen lock automatically?",
    "Your laptop screen will lock by itself once five minutes have passed. Even so, you are expected to lock it manually every time you step away from your desk.",
    [[IT, 5]],
    [("The laptop screen locks by itself after five minutes.", T,
      (IT, 5, "Lock the screen whenever you leave your desk; the screen locks itself after five minutes."), "reworded"),
     ("You are expected to lock the screen manually every time you step away from your desk.", T,
      (IT, 5, "Lock the screen whenever you leave your desk; the screen locks itself after five minutes."), "reworded")])
add("paraphrase", "en", "How many days of paid leave do new employees get?",
    "New employees are granted 10 days of annual paid leave once they have been with the company for half a year, and the number of days then grows with their length of service.",
    [[ON, 7]],
    [("New employees are granted 10 days of annual paid leave after half a year with the company.", T,
      (ON, 7, "年次有給休暇は、入社から6か月後に10日付与されます。"), "cross-language; half a year = 6か月"),
     ("The number of days of paid leave then grows with length of service.", T,
      (ON, 7, "その後は勤続年数に応じて日数が増えます。"), "cross-language")])
add("paraphrase", "en", "What is the warranty on the Lumo X2?",
    "The thermostat is covered for 24 months starting from the day you bought it. Damage resulting from wiring it incorrectly, however, is excluded.",
    [[PM, 11]],
    [("The Lumo X2 is covered for 24 months starting from the day it was bought.", T,
      (PM, 11, "The Lumo X2 has a warranty of two years from the date of purchase."), "24 months = two years"),
     ("Damage resulting from incorrect wiring is excluded from the warranty.", T,
      (PM, 11, "The warranty does not cover damage caused by incorrect wiring."), "negation kept, reworded")])
add("paraphrase", "ja", "パスワードは何文字以上必要ですか。",
    "パスワードは最低でも１４文字の長さが必要です。なお、決まったスケジュールで定期的に変更する必要はありません。",
    [[IT, 2]],
    [("パスワードは最低でも１４文字の長さが必要です。", T, (IT, 2, "Passwords must be at least 14 characters long."), "cross-language"),
     ("パスワードを決まったスケジュールで定期的に変更する必要はありません。", T, (IT, 2, "Passwords do not expire on a schedule."), "cross-language; no scheduled expiry = no periodic change")])
add("paraphrase", "ja", "在宅勤務は週に何日までできますか。",
    "入社して１か月が経過した後であれば、上司の許可をもらったうえで、1週間に2日を上限として在宅で働くことができます。在宅で働く際は、VPNへの接続が必須です。",
    [[ON, 4]],
    [("入社して１か月が経過した後であれば、上司の許可をもらったうえで、1週間に2日を上限として在宅で働くことができます。", T,
      (ON, 4, "入社後１か月を過ぎると、上司の了承を得て週２日まで在宅勤務ができます。"), "了承 = 許可, 週２日まで = 1週間に2日を上限"),
     ("在宅で働く際は、VPNへの接続が必須です。", T, (ON, 4, "在宅勤務中は必ずVPNに接続してください。"), "reworded")])
add("paraphrase", "ja", "有料プランを解約するには、いつまでに通知する必要がありますか。",
    "解約したい日から数えて３０日以上前に、所定の方法で連絡する必要があります。",
    [[TE, 7]],
    [("解約したい日から数えて３０日以上前に、所定の方法で連絡する必要があります。", T,
      (TE, 7, "利用者は、解約希望日の３０日前までに当社所定の方法で通知することにより、有料プランを解約できます。"), "３０日前まで = ３０日以上前; short answer, subject (paid-plan cancellation) from the question")])
add("paraphrase", "ja", "経費精算の期限はいつですか。",
    "経費は、支出が発生した日から30日以内に経費システムで申請しなければなりません。期限を過ぎた申請は、財務チームが書面で延長を認めた場合を除き、自動的に却下されます。",
    [[E, 3]],
    [("経費は、支出が発生した日から30日以内に経費システムで申請しなければなりません。", T,
      (E, 3, "Every claim must be submitted in the expense system within 30 days of the date the expense was incurred."), "cross-language"),
     ("期限を過ぎた申請は、財務チームが書面で延長を認めた場合を除き、自動的に却下されます。", T,
      (E, 3, "A claim submitted later than 30 days is rejected automatically unless the finance team grants an extension in writing."), "cross-language")])
add("paraphrase", "ja", "会議室は何週間先まで予約できますか。",
    "会議室の予約はカレンダーで行います。最大で28日先まで予約を入れることができます。",
    [[FAQ, 1]],
    [("会議室の予約はカレンダーで行います。", T, (FAQ, 1, "会議室はカレンダーから予約します。"), "reworded"),
     ("会議室は最大で28日先まで予約を入れることができます。", T, (FAQ, 1, "予約は最長で４週間先まで可能です。"), "28日 = ４週間")])
add("paraphrase", "ja", "結婚したときの休暇はありますか。",
    "はい、あります。結婚した場合は５日間の休暇を取ることができ、この休暇は給与が支払われる有給扱いです。",
    [[ON, 8]],
    [("結婚した場合は５日間の休暇を取ることができます。", T, (ON, 8, "結婚休暇として５日、忌引休暇として最大５日が与えられます。"), "reworded"),
     ("結婚休暇は給与が支払われる有給扱いです。", T, (ON, 8, "いずれも有給です。"), "いずれも covers 結婚休暇")])

# ---------------------------------------------------------------- numeric_mismatch
add("numeric_mismatch", "en", "From what amount is a receipt required for an expense?",
    "A receipt is required for every expense of 20 EUR or more. Taxis and hotel stays always need a receipt, whatever the amount.",
    [[E, 4]],
    [("A receipt is required for every expense of 20 EUR or more.", F, None, "page says 25 EUR"),
     ("Taxis and hotel stays always need a receipt, whatever the amount.", T,
      (E, 4, "Below 25 EUR a short description is enough, except for taxis and hotel stays, which always need a receipt whatever the amount."), "control: agrees")])
add("numeric_mismatch", "en", "What is the reimbursement rate for driving my own car on business?",
    "Business use of a private car is reimbursed at 0.35 EUR per kilometre.",
    [[E, 7], [E, 6]],
    [("Business use of a private car is reimbursed at 0.35 EUR per kilometre.", F, None, "page says 0.30 EUR per kilometre")])
add("numeric_mismatch", "en", "How many times per year can the missing receipt declaration be used?",
    "It can be used at most five times per calendar year.",
    [[E, 4]],
    [("It can be used at most five times per calendar year.", F, None, "page says three times; short answer, subject (form EX-7) from the question")])
add("numeric_mismatch", "en", "What share of the estimated costs can be paid as an advance for a long trip?",
    "If your trip lasts more than seven days, you can request an advance of up to 70 percent of the estimated costs.",
    [[E, 9]],
    [("If a trip lasts more than seven days, an advance of up to 70 percent of the estimated costs can be requested.", F, None,
      "page says more than ten days; the 70 percent agrees but the condition does not")])
add("numeric_mismatch", "en", "What does error E2 mean?",
    "E2 means there was no heating response within 15 minutes. In that case, you should check the boiler.",
    [[PM, 8]],
    [("E2 means there was no heating response within 15 minutes.", F, None, "page says within 30 minutes"),
     ("For error E2, the boiler should be checked.", T, (PM, 8, "E2: no heating response within 30 minutes; check the boiler."), "control: agrees")])
add("numeric_mismatch", "en", "When was the expense policy last revised?",
    "The expense policy was last revised in April 2025. The previous version allowed 60 days for submission.",
    [[E, 12]],
    [("The expense policy was last revised in April 2025.", F, None, "page says April 2026"),
     ("The previous version allowed 60 days for submission.", T,
      (E, 12, "The previous version allowed 60 days for submission; the deadline is now 30 days."), "control: agrees")])
add("numeric_mismatch", "en", "What temperature range does the Lumo X2 support?",
    "The Lumo X2 supports a temperature range of 5 to 32 degrees Fahrenheit.",
    [[PM, 12]],
    [("The Lumo X2 supports a temperature range of 5 to 32 degrees Fahrenheit.", F, None, "unit differs: page says degrees Celsius")])
add("numeric_mismatch", "ja", "Lumoクラウドの有料プランの月額料金はいくらですか。",
    "有料プランの月額料金は４８００円（税込）です。なお、基本機能は無料でご利用いただけます。",
    [[TE, 3]],
    [("有料プランの月額料金は４８００円（税込）です。", F, None, "page says ４８０円"),
     ("基本機能は無料で利用できます。", T, (TE, 3, "本サービスの基本機能は無料です。"), "control: agrees")])
add("numeric_mismatch", "ja", "30万円の購入は誰が承認しますか。",
    "購入金額が１０万円以上５０万円未満の場合は部門長が承認し、５０万円以上の場合は担当役員の承認が必要です。したがって、30万円の購入は部門長の承認となります。",
    [[PU, 5]],
    [("５０万円以上の購入には担当役員の承認が必要です。", F, None, "page: 担当役員 from １００万円; ５０万円以上１００万円未満 is 部門長"),
     ("30万円の購入は部門長が承認します。", T, (PU, 5, "１０万円以上１００万円未満の場合は部門長が承認する。"), "30万円 lies in the band; control")])
add("numeric_mismatch", "ja", "緊急で購入した場合、いつまでに申請すればよいですか。",
    "業務上やむを得ない緊急の購入は事後承認とすることができます。その場合は、購入後５営業日以内に申請を行ってください。",
    [[PU, 6]],
    [("業務上やむを得ない緊急の購入は、事後承認とすることができます。", T, (PU, 6, "業務上やむを得ない緊急の購入は、事後承認とすることができる。"), "control: agrees"),
     ("緊急の購入をした場合は、購入後５営業日以内に申請を行います。", F, None, "page says ３営業日以内 (５営業日 is the inspection deadline in 4.1)")])
add("numeric_mismatch", "ja", "給与は毎月何日に支払われますか。",
    "給与は毎月20日に支払われます。",
    [[ON, 6]],
    [("給与は毎月20日に支払われます。", F, None, "page says 毎月25日")])
add("numeric_mismatch", "ja", "有給休暇は入社後いつ何日もらえますか。",
    "入社から３か月後に１０日付与されます。",
    [[FAQ, 7]],
    [("入社から３か月後に１０日付与されます。", F, None, "page says ６か月後; short answer, subject (paid leave) from the question")])
add("numeric_mismatch", "ja", "Lumoクラウドの損害賠償の上限はどうなっていますか。",
    "当社が損害賠償責任を負う場合、その額は利用者が過去６か月に支払った利用料金の総額が上限となります。",
    [[TE, 8]],
    [("当社が損害賠償責任を負う場合、その額は利用者が過去６か月に支払った利用料金の総額が上限となります。", F, None, "page says 過去１２か月")])

# ---------------------------------------------------------------- supported_but_wrong
add("supported_but_wrong", "en", "Who approves a purchase order of 1.5 million yen?",
    "Claims above 2,000 EUR need the approval of a director. Also note that an approver may never approve their own claim.",
    [[E, 5]],
    [("Claims above 2,000 EUR need the approval of a director.", T, (E, 5, "Claims above 2,000 EUR need the approval of a director."), "faithful; wrong page (purchases follow the purchasing policy: 担当役員)"),
     ("An approver may never approve their own claim.", T, (E, 5, "An approver may never approve their own claim."), "faithful")])
add("supported_but_wrong", "en", "How long is the warranty on the Lumo power adapter?",
    "The Lumo X2 has a warranty of two years from the date of purchase. Keep the proof of purchase.",
    [[PM, 11]],
    [("The Lumo X2 has a warranty of two years from the date of purchase.", T, (PM, 11, "The Lumo X2 has a warranty of two years from the date of purchase."), "faithful, but about the thermostat, not the adapter"),
     ("The proof of purchase should be kept.", T, (PM, 11, "Keep the proof of purchase."), "faithful")])
add("supported_but_wrong", "en", "How much notice must I give before cancelling the Lumo paid plan?",
    "According to the terms, for important changes to the terms the company notifies users at least 30 days before the changes take effect.",
    [[TE, 2]],
    [("For important changes to the terms, the company notifies users at least 30 days before the changes take effect.", T,
      (TE, 2, "重要な変更を行う場合は、効力発生日の３０日前までに利用者に通知します。"), "cross-language; faithful to 第3条 but that is the company's notice of changes, not the user's cancellation notice (第13条)")])
add("supported_but_wrong", "en", "Within how many working days must I provide paper originals for an audit?",
    "You should keep the paper original for six months, since the finance team may ask for it during an audit.",
    [[E, 3]],
    [("The paper original should be kept for six months.", T, (E, 3, "Keep the paper original for six months; the finance team may ask for it during an audit."), "faithful; the ten-working-day rule is on p.11, not in context"),
     ("The finance team may ask for the paper original during an audit.", T, (E, 3, "Keep the paper original for six months; the finance team may ask for it during an audit."), "faithful")])
add("supported_but_wrong", "en", "When is my monthly salary paid?",
    "According to the expense policy, approved claims are paid with the payroll run on the 5th day of the month following approval. When the 5th is a bank holiday, payment is made on the previous working day.",
    [[E, 9]],
    [("Approved claims are paid with the payroll run on the 5th day of the month following approval.", T,
      (E, 9, "Approved claims are paid with the payroll run on the 5th day of the month following approval."), "faithful; about expense claims, salary is paid on the 25th (onboarding_ja p.6)"),
     ("When the 5th is a bank holiday, payment is made on the previous working day.", T,
      (E, 9, "When the 5th is a bank holiday, payment is made on the previous working day."), "faithful")])
add("supported_but_wrong", "en", "How many days do I have to submit an expense claim?",
    "The policy was last revised in April 2026. The previous version allowed 60 days for submission.",
    [[E, 12]],
    [("The policy was last revised in April 2026.", T, (E, 12, "This policy was last revised in April 2026."), "faithful"),
     ("The previous version allowed 60 days for submission.", T, (E, 12, "The previous version allowed 60 days for submission; the deadline is now 30 days."),
      "faithful but outdated: the answer gives the old rule, not the current 30 days")])
add("supported_but_wrong", "en", "What is the daily meal allowance when I stay with friends during a trip?",
    "An employee who stays with friends or family instead of a hotel receives a flat allowance of 30 EUR per night. No receipt is required.",
    [[TR, 8]],
    [("An employee who stays with friends or family instead of a hotel receives a flat allowance of 30 EUR per night.", T,
      (TR, 8, "An employee who stays with friends or family instead of a hotel receives a flat allowance of 30 EUR per night."), "faithful; that is the accommodation allowance, the meal allowance is 45 EUR (expense_policy p.6)"),
     ("No receipt is required for this allowance.", T, (TR, 8, "No receipt is required."), "faithful")])
add("supported_but_wrong", "ja", "出張の申請は何日前までに必要ですか。",
    "資料によると、３日以上続けて休む場合は、２週間前までに申請する必要があります。",
    [[ON, 7]],
    [("３日以上続けて休む場合は、２週間前までに申請する必要があります。", T, (ON, 7, "３日以上続けて休む場合は、２週間前までに申請してください。"),
      "faithful; about leave requests, not travel requests")])
add("supported_but_wrong", "ja", "給与は毎月何日に支払われますか。",
    "承認された経費は、翌月５日の給与と一緒に振り込まれます。５日が銀行の休業日のときは前の営業日になります。",
    [[FAQ, 2]],
    [("承認された経費は、翌月５日の給与と一緒に振り込まれます。", T, (FAQ, 2, "承認された経費は、翌月５日の給与と一緒に振り込まれます。"), "faithful; salary itself is paid on the 25th (onboarding_ja p.6)"),
     ("５日が銀行の休業日のときは前の営業日になります。", T, (FAQ, 2, "５日が銀行の休業日のときは前の営業日になります。"), "faithful")])
add("supported_but_wrong", "ja", "10万円の備品購入には誰の承認が必要ですか。",
    "経費精算規程では、500ユーロまでの経費は承認者のみで承認されます。",
    [[E, 5]],
    [("500ユーロまでの経費は承認者のみで承認されます。", T, (E, 5, "Claims up to 500 EUR are approved by the approver alone."),
      "cross-language; faithful, but purchases follow the purchasing policy (部門長)")])
add("supported_but_wrong", "ja", "Lumoクラウドを解約した後、データはいつ削除されますか。",
    "運転履歴は２４か月間保存され、その後削除されます。",
    [[TE, 6]],
    [("運転履歴は２４か月間保存され、その後削除されます。", T, (TE, 6, "運転履歴は２４か月間保存し、その後削除します。"),
      "faithful; the page does not tie the deletion to cancellation")])
add("supported_but_wrong", "ja", "出張のホテル代の上限はいくらですか。",
    "ホテル代には上限がありますので、予約の前に出張規程を確認してください。",
    [[ON, 6]],
    [("ホテル代には上限があり、予約の前に出張規程を確認する必要があります。", T, (ON, 6, "ホテル代には上限がありますので、予約の前に出張規程を確認してください。"),
      "faithful, but gives no amount (150/200 EUR are in travel_policy p.7)")])
add("supported_but_wrong", "ja", "立て替えた経費はいつ振り込まれますか。",
    "購買規程によると、取引先への支払いは原則として月末締め翌月末払いです。",
    [[PU, 7]],
    [("取引先への支払いは原則として月末締め翌月末払いです。", T, (PU, 7, "取引先への支払いは、原則として月末締め翌月末払いとする。"),
      "faithful; supplier payments, not employee reimbursements")])

# ---------------------------------------------------------------- negation_flip
add("negation_flip", "en", "Is alcohol reimbursed at a client dinner?",
    "Yes. Alcohol at a client dinner is reimbursable, since client meals are reimbursed at actual cost with a receipt and the names of the guests.",
    [[E, 6]],
    [("Alcohol at a client dinner is reimbursable.", F, None, "flipped: 'Alcohol is not reimbursable, including at client meals.'"),
     ("Client meals are reimbursed at actual cost with a receipt and the names of the guests.", T,
      (E, 6, "Client meals are reimbursed at actual cost with a receipt and the names of the guests."), "control: agrees")])
add("negation_flip", "en", "Do I have to change my password every few months?",
    "Yes. Passwords expire on a schedule, so you have to change yours regularly.",
    [[IT, 2]],
    [("Passwords expire on a schedule, so they have to be changed regularly.", F, None, "flipped: 'Passwords do not expire on a schedule.'")])
add("negation_flip", "en", "Does the travel insurance cover a private holiday added to a business trip?",
    "Yes. Every approved trip is covered by the company's travel insurance, and this includes private extensions of the trip.",
    [[TR, 3]],
    [("Every approved trip is covered by the company's travel insurance.", T,
      (TR, 3, "Every approved trip is covered by the company's travel insurance from the moment the employee leaves home."), "control: agrees"),
     ("Private extensions of a trip are covered by the travel insurance.", F, None, "flipped: 'Private extensions of a trip are not covered.'")])
add("negation_flip", "en", "Is an expense claim submitted after 30 days always rejected?",
    "Not always: a claim submitted later than 30 days is not rejected automatically if the finance team grants an extension in writing.",
    [[E, 3]],
    [("A claim submitted later than 30 days is not rejected automatically if the finance team grants an extension in writing.", T,
      (E, 3, "A claim submitted later than 30 days is rejected automatically unless the finance team grants an extension in writing."),
      "'not rejected ... if' restates 'rejected ... unless'; polarity kept")])
add("negation_flip", "en", "Can I claim mileage when I drive my own car on business?",
    "Yes. Business use of a private car is reimbursed at 0.30 EUR per kilometre. Commuting between home and your usual office, however, does not count as business use.",
    [[E, 7]],
    [("Business use of a private car is reimbursed at 0.30 EUR per kilometre.", T,
      (E, 7, "Business use of a private car is reimbursed at 0.30 EUR per kilometre."), "agrees"),
     ("Commuting between home and the usual office does not count as business use.", T,
      (E, 7, "Commuting between home and the usual office is not business use."), "negation kept")])
add("negation_flip", "en", "Can I use public Wi-Fi for work?",
    "Yes, public Wi-Fi may be used, and you do not need to turn on the VPN for it. You should not use public computers to access company systems, though.",
    [[IT, 7]],
    [("Public Wi-Fi may be used without turning on the VPN.", F, None, "flipped: 'Public Wi-Fi may be used with the VPN on.'"),
     ("Public computers should not be used to access company systems.", T, (IT, 7, "Do not use public computers to access company systems."), "negation kept")])
add("negation_flip", "en", "Will the company pay for a hotel I booked outside Wayfarer?",
    "Only in one case: bookings made outside Wayfarer are paid by the company when Wayfarer could not offer the same trip.",
    [[TR, 2]],
    [("Bookings made outside Wayfarer are paid by the company when Wayfarer could not offer the same trip.", T,
      (TR, 2, "Bookings made elsewhere are not paid by the company, unless Wayfarer could not offer the same trip."),
      "the claim's 'not' belongs to the condition ('could not offer'); 'not paid ... unless' = paid when; supported")])
add("negation_flip", "ja", "USBメモリは会社のパソコンで使えますか。",
    "はい、会社のパソコンでもUSBメモリを使うことができます。",
    [[FAQ, 6]],
    [("会社のパソコンでもUSBメモリを使うことができます。", F, None, "flipped: 会社のパソコンではUSBメモリは使えません")])
add("negation_flip", "ja", "お酒代は精算できますか。",
    "取引先との会食であれば、お酒の代金も会社負担になります。",
    [[FAQ, 3]],
    [("取引先との会食であれば、お酒の代金も会社負担になります。", F, None, "flipped: 取引先との会食でも、お酒の代金は会社負担になりません")])
add("negation_flip", "ja", "Lumo X2は5GHzのWi-Fiに対応していますか。",
    "はい、Lumo X2は5GHzのWi-Fiネットワークにも対応しています。",
    [[PM, 5]],
    [("Lumo X2は5GHzのWi-Fiネットワークにも対応しています。", F, None, "cross-language; flipped: '5 GHz networks are not supported.'")])
add("negation_flip", "ja", "相見積もりを省略できるのはどのような場合ですか。",
    "特定の取引先しか提供できない製品やサービスの場合は、理由書を添付すれば、相見積もりを取らなくても構いません。",
    [[PU, 4], [PU, 3]],
    [("特定の取引先しか提供できない製品やサービスの場合は、理由書を添付すれば相見積もりを取らなくても構いません。", T,
      (PU, 4, "特定の取引先しか提供できない製品やサービスの場合は、理由書を添付することで相見積もりを省略できる。"),
      "the ない in しか提供できない belongs to the condition; 取らなくても構わない = 省略できる; supported")])
add("negation_flip", "ja", "支払済みの料金は返金されますか。",
    "有料プランの料金は、クレジットカードにより毎月１日に前払いで請求されます。支払済みの料金は、申し出があれば返金されます。",
    [[TE, 4]],
    [("有料プランの料金は、クレジットカードにより毎月１日に前払いで請求されます。", T,
      (TE, 4, "有料プランの料金は、クレジットカードにより毎月１日に前払いで請求します。"), "control: agrees"),
     ("支払済みの料金は、申し出があれば返金されます。", F, None, "flipped: 法令に定める場合を除き返金しません")])
add("negation_flip", "ja", "通信障害で損害が出た場合、Lumoクラウドの運営会社は責任を負いますか。",
    "いいえ。通信障害その他、当社の責めに帰すことができない事由により生じた損害については、当社は責任を負いません。",
    [[TE, 8]],
    [("通信障害により生じた損害について、当社は責任を負いません。", T,
      (TE, 8, "当社は、通信障害その他当社の責めに帰すことができない事由により生じた損害について、責任を負いません。"),
      "negation kept; the できない belongs to the cause, not to the liability")])

# ---------------------------------------------------------------- partial
add("partial", "en", "What is the daily meal allowance when travelling on business?",
    "When travelling, you receive a daily meal allowance of 45 EUR, paid without receipts. The allowance is paid together with your next salary.",
    [[E, 6]],
    [("When travelling, there is a daily meal allowance of 45 EUR, paid without receipts.", T,
      (E, 6, "When travelling, meals are covered by a daily meal allowance of 45 EUR, paid without receipts."), "agrees"),
     ("The meal allowance is paid together with the next salary.", F, None, "not on the page")])
add("partial", "en", "What is the phone extension of the security hotline?",
    "The security hotline is extension 4444 and is available 24 hours a day. Calls are answered in both English and Japanese.",
    [[IT, 10]],
    [("The security hotline is extension 4444 and is available 24 hours a day.", T,
      (IT, 10, "Call the security hotline at extension 4444, available 24 hours a day, or write to security@kestrel.example."), "agrees"),
     ("Hotline calls are answered in both English and Japanese.", F, None, "languages not on the page")])
add("partial", "en", "How do I pair the thermostat with the Lumo app?",
    "Open the Lumo app, tap Add device and scan the QR code shown on the thermostat. Make sure Bluetooth is switched on on your phone before you start.",
    [[PM, 6]],
    [("Open the Lumo app, tap Add device and scan the QR code shown on the thermostat.", T,
      (PM, 6, "Open the Lumo app, tap Add device and scan the QR code shown on the thermostat."), "agrees"),
     ("Bluetooth must be switched on on the phone before pairing.", F, None, "Bluetooth is not mentioned on p.6 (only in the specifications, p.12, not in context)")])
add("partial", "en", "How much time should I allow to get a visa?",
    "You should allow at least four weeks for a visa. The travel desk handles the visa application for you.",
    [[TR, 3]],
    [("At least four weeks should be allowed for a visa.", T, (TR, 3, "Allow at least four weeks for a visa."), "agrees"),
     ("The travel desk handles the visa application for the employee.", F, None, "not on the page (it only says the company pays visa fees)")])
add("partial", "en", "What are the information classification levels?",
    "Information is classified as Public, Internal, Confidential or Restricted. Restricted data, such as salary and health data, may only be stored in approved systems.",
    [[IT, 8]],
    [("Information is classified as Public, Internal, Confidential or Restricted.", T,
      (IT, 8, "Information is classified as Public, Internal, Confidential or Restricted."), "agrees"),
     ("Restricted data, such as salary and health data, may only be stored in approved systems.", F, None, "health data is not named on the page (only salary data)")])
add("partial", "en", "When may I fly business class?",
    "Business class is allowed for flights longer than eight hours, with the prior approval of a vice president. The request has to be submitted at least 30 days before the flight.",
    [[TR, 4]],
    [("Business class is allowed for flights longer than eight hours, with the prior approval of a vice president.", T,
      (TR, 4, "Business class is allowed for flights longer than eight hours, with the prior approval of a vice president."), "agrees"),
     ("A business class request has to be submitted at least 30 days before the flight.", F, None, "no 30-day rule on the page")])
add("partial", "en", "How are company laptops protected if they are lost?",
    "All laptops use full-disk encryption, which is enabled before the laptop is handed over. The encryption keys are stored by the IT department so that data can be recovered.",
    [[IT, 5]],
    [("All laptops use full-disk encryption, which is enabled before the laptop is handed over.", T,
      (IT, 5, "All laptops use full-disk encryption, which is enabled before the laptop is handed over."), "agrees"),
     ("The encryption keys are stored by the IT department so that data can be recovered.", F, None, "key storage not on the page")])
add("partial", "ja", "情報セキュリティ研修はいつまでに修了しなければなりませんか。",
    "情報セキュリティ研修は全員必須で、入社後1か月以内に修了する必要があります。研修はオンラインで受講します。",
    [[ON, 8]],
    [("情報セキュリティ研修は全員必須で、入社後1か月以内に修了する必要があります。", T,
      (ON, 8, "情報セキュリティ研修は全員必須で、入社後1か月以内に修了する必要があります。"), "agrees"),
     ("情報セキュリティ研修はオンラインで受講します。", F, None, "format of the training not on the page")])
add("partial", "ja", "新しい取引先を登録するときに必要な書類は何ですか。",
    "登記事項証明書と、反社会的勢力でないことの確認書が必要です。加えて、直近３期分の決算書の提出も求められます。",
    [[PU, 8]],
    [("新しい取引先の登録には、登記事項証明書と反社会的勢力でないことの確認書が必要です。", T,
      (PU, 8, "登録には登記事項証明書と反社会的勢力でないことの確認書が必要である。"), "agrees"),
     ("新しい取引先の登録には、直近３期分の決算書の提出も求められます。", F, None, "決算書 not on the page")])
add("partial", "ja", "サービスに関する紛争の管轄裁判所はどこですか。",
    "東京地方裁判所が第一審の専属的合意管轄裁判所です。なお、本規約の英語版は参考訳にすぎません。",
    [[TE, 9]],
    [("東京地方裁判所が第一審の専属的合意管轄裁判所です。", T,
      (TE, 9, "本サービスに関する紛争については、東京地方裁判所を第一審の専属的合意管轄裁判所とします。"), "agrees"),
     ("本規約の英語版は参考訳にすぎません。", F, None, "no English version mentioned")])
add("partial", "ja", "メンターとはどのくらいの頻度で面談しますか。",
    "メンターとは月に１回、３０分の面談を行います。メンターは同じ部署の先輩社員が担当します。",
    [[ON, 9]],
    [("メンターとは月に１回、３０分の面談を行います。", T, (ON, 9, "メンターとは月に１回、３０分の面談を行います。"), "agrees"),
     ("メンターは同じ部署の先輩社員が担当します。", F, None, "who the mentor is, is not on the page")])
add("partial", "ja", "飛行機のビジネスクラスは使えますか。",
    "飛行時間が８時間を超える場合に限り、事前に副社長の承認を得て利用できます。承認は出張申請と同時にWayfarerで申請します。",
    [[FAQ, 4]],
    [("飛行時間が８時間を超える場合に限り、事前に副社長の承認を得て利用できます。", T,
      (FAQ, 4, "飛行時間が８時間を超える場合に限り、事前に副社長の承認を得て利用できます。"), "agrees; short answer, subject (business class) from the question"),
     ("ビジネスクラスの承認は出張申請と同時にWayfarerで申請します。", F, None, "how the approval is requested is not on the page")])
add("partial", "ja", "ノートパソコンを紛失したらどうすればよいですか。",
    "紛失や盗難に気づいたら、時間帯にかかわらず直ちに内線4444のセキュリティホットラインに報告してください。代替機は翌営業日に支給されます。",
    [[IT, 6]],
    [("ノートパソコンを紛失したら、時間帯にかかわらず直ちに内線4444のセキュリティホットラインに報告します。", T,
      (IT, 6, "Report a lost or stolen laptop or phone to the security hotline at extension 4444 immediately, at any hour."), "cross-language; agrees"),
     ("代替機は翌営業日に支給されます。", F, None, "replacement device not on the page")])

# ---------------------------------------------------------------- hallucinated_detail
add("hallucinated_detail", "en", "Who do I contact with questions about the expense policy?",
    "Questions about the policy go to the finance helpdesk, which you can reach at expenses@kestrel.example or on extension 2100. The helpdesk is staffed by Maria Lindqvist from 9:00 to 17:00.",
    [[E, 12]],
    [("Questions about the policy go to the finance helpdesk at expenses@kestrel.example or extension 2100.", T,
      (E, 12, "Questions about this policy go to the finance helpdesk, expenses@kestrel.example, or extension 2100."), "agrees"),
     ("The helpdesk is staffed by Maria Lindqvist from 9:00 to 17:00.", F, None, "invented name and hours")])
add("hallucinated_detail", "en", "How much does the Lumo power adapter cost?",
    "The Lumo power adapter is sold separately and costs 29.99 EUR.",
    [[PM, 4], [PM, 9]],
    [("The Lumo power adapter is sold separately.", T, (PM, 4, "If your system has no C wire, use the Lumo power adapter, sold separately."), "agrees"),
     ("The Lumo power adapter costs 29.99 EUR.", F, None, "invented price")])
add("hallucinated_detail", "en", "What is the reimbursement limit for dental treatment?",
    "Dental treatment is reimbursed up to 500 EUR per calendar year, provided you submit an itemised receipt.",
    [[E, 8], [E, 6], [E, 2]],
    [("Dental treatment is reimbursed up to 500 EUR per calendar year, provided an itemised receipt is submitted.", F, None, "invented: dental treatment is not in the corpus")])
add("hallucinated_detail", "en", "How many weeks of parental leave do employees get?",
    "Employees are entitled to 16 weeks of paid parental leave.",
    [[ON, 8]],
    [("Employees are entitled to 16 weeks of paid parental leave.", F, None, "invented: the page lists only marriage and bereavement leave")])
add("hallucinated_detail", "en", "Which batteries does the thermostat's backup clock use?",
    "The backup clock runs on two CR2032 coin batteries, which last about five years.",
    [[PM, 2]],
    [("The backup clock runs on two CR2032 coin batteries.", T,
      (PM, 2, "The box contains the Lumo X2 thermostat, a wall plate, two screws with wall plugs, a wiring label sheet, and two CR2032 coin batteries for the backup clock."), "agrees"),
     ("The CR2032 batteries last about five years.", F, None, "battery life not on the page")])
add("hallucinated_detail", "en", "How do I request a company car for daily use?",
    "Company cars for daily use are requested through the Wayfarer portal with your line manager's approval.",
    [[TR, 6], [TR, 2]],
    [("Company cars for daily use are requested through the Wayfarer portal with the line manager's approval.", F, None, "invented: company cars are not in the corpus (p.6 covers rental cars)")])
add("hallucinated_detail", "en", "What happens when a firmware update fails?",
    "The thermostat shows error E6, which means the firmware update failed. It retries automatically after one hour, up to three times.",
    [[PM, 9]],
    [("Error E6 means the firmware update failed.", T, (PM, 9, "E6: firmware update failed; the thermostat retries automatically after one hour."), "agrees"),
     ("After a failed update, the thermostat retries automatically after one hour.", T, (PM, 9, "E6: firmware update failed; the thermostat retries automatically after one hour."), "agrees"),
     ("The thermostat retries the update up to three times.", F, None, "number of retries invented")])
add("hallucinated_detail", "ja", "社員食堂は何時まで営業していますか。",
    "社員食堂は午後２時まで営業しています。",
    [[ON, 3]],
    [("社員食堂は午後２時まで営業しています。", F, None, "invented: no canteen in the corpus")])
add("hallucinated_detail", "ja", "株主総会はいつ開催されますか。",
    "株主総会は毎年６月に本社で開催されます。",
    [[PU, 10]],
    [("株主総会は毎年６月に本社で開催されます。", F, None, "invented: the page only mentions 取締役会 and the effective date")])
add("hallucinated_detail", "ja", "会議室の予約方法を教えてください。",
    "会議室はカレンダーから予約します。予約は最長で４週間先まで可能で、１回の利用は２時間までです。",
    [[FAQ, 1]],
    [("会議室はカレンダーから予約します。", T, (FAQ, 1, "会議室はカレンダーから予約します。"), "agrees"),
     ("会議室の予約は最長で４週間先まで可能です。", T, (FAQ, 1, "予約は最長で４週間先まで可能です。"), "agrees"),
     ("会議室の１回の利用は２時間までです。", F, None, "invented time limit")])
add("hallucinated_detail", "ja", "来客用のWi-Fiはありますか。",
    "はい。受付で来客用のWi-Fiパスワードを発行します。パスワードは毎日午前０時に変わります。",
    [[FAQ, 1]],
    [("受付で来客用のWi-Fiパスワードを発行します。", T, (FAQ, 1, "受付で来客用のWi-Fiパスワードを発行します。"), "agrees"),
     ("来客用のWi-Fiパスワードは毎日午前０時に変わります。", F, None, "the page says it changes daily; the time 午前０時 is invented")])
add("hallucinated_detail", "ja", "社内報はどこで読めますか。",
    "社内ポータルのお知らせ欄で毎月１日に公開されます。過去の号は広報部のアーカイブで閲覧できます。",
    [[FAQ, 9]],
    [("社内ポータルのお知らせ欄で毎月１日に公開されます。", T, (FAQ, 9, "社内ポータルのお知らせ欄で毎月１日に公開されます。"), "agrees; short answer, subject (社内報) from the question"),
     ("過去の号は広報部のアーカイブで閲覧できます。", F, None, "invented archive")])
add("hallucinated_detail", "ja", "クラウドサービスを契約するには何が必要ですか。",
    "クラウドサービスの契約には、情報システム部によるセキュリティ審査が必要です。審査には通常２週間かかります。",
    [[PU, 9]],
    [("クラウドサービスの契約には、情報システム部によるセキュリティ審査が必要です。", T,
      (PU, 9, "クラウドサービスの契約には、情報システム部によるセキュリティ審査が必要である。"), "agrees"),
     ("セキュリティ審査には通常２週間かかります。", F, None, "duration invented")])

# ---------------------------------------------------------------- distractor
add("distractor", "en", "How far ahead must a business trip be requested?",
    "You should submit your travel request at least four weeks before departure.",
    [[TR, 2], [TR, 3]],
    [("A travel request must be submitted at least four weeks before departure.", F, None,
      "mixed: four weeks is the visa lead time (p.3); the travel request deadline is 14 days (p.2)")])
add("distractor", "en", "What does error E4 mean on the thermostat?",
    "It means the Wi-Fi connection was lost; you should check the router.",
    [[PM, 8], [PM, 9]],
    [("It means the Wi-Fi connection was lost; check the router.", F, None,
      "E3's meaning (p.8) given for E4 (p.9 says unstable power); short answer, subject (E4) from the question")])
add("distractor", "en", "Who approves an expense claim of 300 EUR?",
    "An expense claim of 300 EUR needs the written approval of the finance director.",
    [[E, 5], [E, 10]],
    [("An expense claim of 300 EUR needs the written approval of the finance director.", F, None,
      "mixed: the finance director approves exceptions (p.10); a 300 EUR claim is approved by the approver alone (p.5)")])
add("distractor", "en", "How long should an approver take to act on a claim?",
    "Approvers must act on a claim within ten working days. The system reminds them after three working days.",
    [[E, 5], [E, 11]],
    [("Approvers must act on a claim within ten working days.", F, None,
      "page says five working days; ten is the escalation point (p.5) and the originals deadline (p.11)"),
     ("The system reminds approvers after three working days.", T, (E, 5, "The system reminds them after three working days and escalates to their own manager after ten."), "agrees")])
add("distractor", "en", "When may I fly business class?",
    "Business class is allowed for flights longer than two hours, and it needs the prior approval of a vice president.",
    [[TR, 4], [TR, 6]],
    [("Business class is allowed for flights longer than two hours.", F, None, "mixed: two hours is the train first-class rule (p.6); flights need more than eight hours (p.4)"),
     ("Business class needs the prior approval of a vice president.", T,
      (TR, 4, "Business class is allowed for flights longer than eight hours, with the prior approval of a vice president."), "agrees")])
add("distractor", "en", "What is the maximum hotel rate per night in a capital city?",
    "If you stay with friends or family instead of a hotel, you receive a flat allowance of 30 EUR per night. For hotels in capital cities, the cap is 200 EUR per night.",
    [[TR, 8], [TR, 7], [TR, 9]],
    [("An employee who stays with friends or family instead of a hotel receives a flat allowance of 30 EUR per night.", T,
      (TR, 8, "An employee who stays with friends or family instead of a hotel receives a flat allowance of 30 EUR per night."), "fact from the distractor page, faithfully reported"),
     ("In capital cities the hotel cap is 200 EUR per night.", T, (TR, 7, "In capital cities the cap is 200 EUR per night."), "agrees")])
add("distractor", "en", "When are supplier invoices paid?",
    "Suppliers are paid on the 5th of the following month. Suppliers are asked to send their invoices to the purchasing section.",
    [[PU, 7], [FAQ, 2]],
    [("Suppliers are paid on the 5th of the following month.", F, None,
      "cross-language; mixed: the 5th is the expense payout (faq_ja p.2); suppliers are paid at the end of the following month (purchase p.7)"),
     ("Suppliers are asked to send their invoices to the purchasing section.", T,
      (PU, 7, "請求書は購買課宛てに送付するよう取引先に依頼する。"), "cross-language; agrees")])
add("distractor", "ja", "有給休暇は入社後いつ何日もらえますか。",
    "入社から6か月後に５日付与されます。",
    [[ON, 7], [ON, 8]],
    [("入社から6か月後に５日付与されます。", F, None, "mixed: ５日 is the marriage leave (p.8); paid leave is 10日 (p.7); short answer")])
add("distractor", "ja", "在宅勤務は週に何日までできますか。",
    "入社後１か月を過ぎると、上司の了承を得て週２日まで在宅勤務ができます。また、在宅勤務をしている場合は、椅子や机の購入費として毎年３００ユーロまで請求できます。",
    [[ON, 4], [E, 7]],
    [("入社後１か月を過ぎると、上司の了承を得て週２日まで在宅勤務ができます。", T,
      (ON, 4, "入社後１か月を過ぎると、上司の了承を得て週２日まで在宅勤務ができます。"), "agrees"),
     ("在宅勤務をしている場合は、椅子や机の購入費として毎年３００ユーロまで請求できます。", F, None,
      "distractor page says once every three years, and only for those working from home at least two days a week")])
add("distractor", "ja", "出張の申請はいつまでに行いますか。",
    "出発の１４日前までにWayfarerで申請してください。休暇と同じく、勤怠システムで上司の承認を受けます。",
    [[FAQ, 5], [ON, 7]],
    [("出張は出発の１４日前までにWayfarerで申請します。", T, (FAQ, 5, "出発の１４日前までにWayfarerで申請してください。"), "agrees"),
     ("出張の申請は、休暇と同じく勤怠システムで上司の承認を受けます。", F, None, "mixed: the 勤怠システム is for leave (onboarding p.7)")])
add("distractor", "ja", "Lumo X2の保証期間は？",
    "購入日から２４か月間です。",
    [[FAQ, 8], [TE, 6]],
    [("購入日から２４か月間です。", T, (FAQ, 8, "購入日から２年間です。"),
      "２４か月 = ２年間, supported by faq_ja p.8 although ２４か月 also appears on the distractor page (data retention); short answer")])
add("distractor", "ja", "納品された物品の検収は、いつまでに登録しますか。",
    "納品された物品は、購入後３営業日以内に検収を登録します。",
    [[PU, 6], [PU, 7]],
    [("納品された物品は、購入後３営業日以内に検収を登録します。", F, None,
      "mixed: ３営業日 is the emergency-purchase deadline; inspection is within ５営業日")])
add("distractor", "ja", "Lumo X2の運転履歴はどのくらい保存されますか。",
    "運転履歴の保存期間は１２か月間で、その後削除されます。",
    [[TE, 8], [TE, 6]],
    [("運転履歴の保存期間は１２か月間で、その後削除されます。", F, None, "mixed: １２か月 is the damages cap period (p.8); retention is ２４か月 (p.6)")])

# ---------------------------------------------------------------- non_gold_support
add("non_gold_support", "en", "What is the deadline for submitting an expense claim?",
    "Expenses must be claimed in the expense system within 30 days of the day the money was spent.",
    [[ON, 5]],
    [("Expenses must be claimed in the expense system within 30 days of the day the money was spent.", T,
      (ON, 5, "仕事で立て替えたお金は、使った日から30日以内に経費システムで申請します。"), "cross-language; the onboarding guide restates the policy")])
add("non_gold_support", "en", "Which batteries does the thermostat's backup clock use?",
    "The backup clock uses CR2032 batteries. Error E5 indicates that the backup clock battery is low and the CR2032 batteries should be replaced.",
    [[PM, 9]],
    [("The backup clock uses CR2032 batteries.", T, (PM, 9, "E5: the backup clock battery is low; replace the CR2032 batteries."), "follows from the E5 entry"),
     ("Error E5 indicates that the backup clock battery is low.", T, (PM, 9, "E5: the backup clock battery is low; replace the CR2032 batteries."), "agrees")])
add("non_gold_support", "en", "How do I claim a taxi I paid for myself during a business trip?",
    "Taxis you pay for personally during a trip are claimed under the Expense Reimbursement Policy rather than the travel policy.",
    [[TR, 1]],
    [("Taxis paid personally during a trip are claimed under the Expense Reimbursement Policy.", T,
      (TR, 1, "Costs paid personally during a trip, such as meals and taxis, are claimed under the Expense Reimbursement Policy."), "the travel policy's scope says it")])
add("non_gold_support", "en", "Is alcohol reimbursed at a client dinner?",
    "No. Alcohol is on the policy's list of items that are never reimbursed.",
    [[E, 8]],
    [("Alcohol is never reimbursed.", T, (E, 8, "The following are never reimbursed: fines and penalties, personal grooming, gifts to colleagues, alcohol, in-flight entertainment, and expenses for a spouse or family member."),
      "4.6 lists alcohol; 'never' covers client dinners")])
add("non_gold_support", "en", "What does error E4 mean on the thermostat?",
    "E4 is shown when the thermostat has no C wire: it then restarts repeatedly. If your system has no C wire, you can use the Lumo power adapter, which is sold separately.",
    [[PM, 4]],
    [("Without a C wire, the thermostat restarts repeatedly and shows error E4.", T, (PM, 4, "Without a C wire the thermostat restarts repeatedly and shows error E4."), "agrees"),
     ("If the system has no C wire, the Lumo power adapter, sold separately, can be used.", T,
      (PM, 4, "If your system has no C wire, use the Lumo power adapter, sold separately."), "agrees")])
add("non_gold_support", "en", "What should I do if my laptop is lost?",
    "A lost device counts as a security incident. Call the security hotline at extension 4444, which is available 24 hours a day, or write to security@kestrel.example.",
    [[IT, 10]],
    [("A lost device counts as a security incident.", T, (IT, 10, "Any event that may expose company data or systems: a lost device, a wrong recipient on an email with confidential data, malware, a suspicious login notice."), "7.1 lists it"),
     ("The security hotline at extension 4444 is available 24 hours a day, and security@kestrel.example can be used instead.", T,
      (IT, 10, "Call the security hotline at extension 4444, available 24 hours a day, or write to security@kestrel.example."), "agrees")])
add("non_gold_support", "en", "What does an amber status light mean?",
    "The status light is amber while a firmware update is being installed. An update takes about five minutes, and you should not switch off the power during it.",
    [[PM, 10]],
    [("The status light is amber while a firmware update is being installed.", T,
      (PM, 10, "The status light is amber during an update, which takes about five minutes."), "the maintenance page says it (gold is p.2, not in context)"),
     ("A firmware update takes about five minutes.", T, (PM, 10, "The status light is amber during an update, which takes about five minutes."), "agrees"),
     ("The power should not be switched off during an update.", T, (PM, 10, "Do not switch off the power during an update."), "agrees")])
add("non_gold_support", "ja", "立て替えた経費はいつ振り込まれますか。",
    "精算されたお金は、承認された月の翌月5日の給与と一緒に振り込まれます。",
    [[ON, 5]],
    [("精算されたお金は、承認された月の翌月5日の給与と一緒に振り込まれます。", T,
      (ON, 5, "精算されたお金は、承認された月の翌月5日の給与と一緒に振り込まれます。"), "onboarding restates faq/expense policy")])
add("non_gold_support", "ja", "出張の申請はいつまでにしますか。",
    "出発の2週間前までにWayfarerで申請します。",
    [[ON, 6]],
    [("出発の2週間前までにWayfarerで申請します。", T, (ON, 6, "出張するときは、出発の2週間前までにWayfarerで申請します。"), "onboarding restates travel policy; short answer")])
add("non_gold_support", "ja", "会社のパソコンでUSBメモリは使えますか。",
    "いいえ、USBメモリは使えません。文書の共有には会社のファイルサービスを使います。",
    [[ON, 4]],
    [("USBメモリは使えません。", T, (ON, 4, "USBメモリは使えません。"), "onboarding restates it"),
     ("文書の共有には会社のファイルサービスを使います。", T, (ON, 4, "連絡にはチャットツールを、文書の共有には会社のファイルサービスを使います。"), "agrees")])
add("non_gold_support", "ja", "お酒代は精算できますか。",
    "いいえ、お酒の代金は精算できません。取引先との会食であっても対象外です。",
    [[E, 6]],
    [("お酒の代金は精算できません。", T, (E, 6, "Alcohol is not reimbursable, including at client meals."), "cross-language"),
     ("取引先との会食であっても、お酒の代金は精算の対象外です。", T, (E, 6, "Alcohol is not reimbursable, including at client meals."), "cross-language")])
add("non_gold_support", "ja", "フィッシングメールを受け取ったらどうすればよいですか。",
    "メールソフトの報告ボタンを使い、受信から１時間以内に報告してください。また、同僚には転送しないでください。",
    [[IT, 4]],
    [("フィッシングメールは、メールソフトの報告ボタンを使い、受信から１時間以内に報告します。", T,
      (IT, 4, "Report a suspicious email with the Report button in the mail client within one hour of receiving it."), "cross-language"),
     ("フィッシングメールを同僚に転送してはいけません。", T, (IT, 4, "Do not forward it to colleagues."), "cross-language")])
add("non_gold_support", "ja", "有給休暇は何日ありますか。",
    "入社から6か月後に10日付与されます。",
    [[ON, 7]],
    [("入社から6か月後に10日付与されます。", T, (ON, 7, "年次有給休暇は、入社から6か月後に10日付与されます。"), "onboarding restates faq Q13; short answer")])

# ---------------------------------------------------------------- refusal
add("refusal", "en", "What is the reimbursement limit for dental treatment?",
    "The documents do not state a reimbursement limit for dental treatment.",
    [[E, 8], [E, 6]],
    [("The documents do not state a reimbursement limit for dental treatment.", T, None, "no context page mentions dental treatment")])
add("refusal", "en", "How much does the Lumo power adapter cost?",
    "The documents do not say how much the Lumo power adapter costs.",
    [[PM, 4]],
    [("The documents do not say how much the Lumo power adapter costs.", T, None, "p.4 says only that it is sold separately")])
add("refusal", "en", "How many weeks of parental leave do employees get?",
    "I'm sorry, but the provided documents do not specify how many weeks of parental leave employees receive.",
    [[ON, 8], [ON, 7], [FAQ, 7]],
    [("The provided documents do not specify how many weeks of parental leave employees receive.", T, None, "only marriage and bereavement leave on the pages")])
add("refusal", "en", "After how long does the laptop screen lock automatically?",
    "The documents do not say after how long the laptop screen locks automatically.",
    [[IT, 5]],
    [("The documents do not say after how long the laptop screen locks automatically.", F, None, "p.5 says after five minutes")])
add("refusal", "en", "How much time should I allow to get a visa?",
    "I could not find any information in the documents about how much time to allow for a visa.",
    [[TR, 3], [TR, 2]],
    [("The documents contain no information about how much time to allow for a visa.", F, None, "p.3: 'Allow at least four weeks for a visa.'")])
add("refusal", "en", "Can contractors claim expenses under the expense policy?",
    "The documents do not say whether contractors are covered by the expense policy.",
    [[E, 1]],
    [("The documents do not say whether contractors are covered by the expense policy.", F, None, "p.1 says contractors are not covered here")])
add("refusal", "en", "How is the carbon footprint of business travel reported?",
    "The provided pages do not describe how the carbon footprint of business travel is reported.",
    [[TR, 10]],
    [("The provided pages do not describe how the carbon footprint of business travel is reported.", T, None,
      "context misses p.11 (the relevant page); p.10 says nothing about it")])
add("refusal", "ja", "社員食堂は何時まで営業していますか。",
    "申し訳ありませんが、資料には社員食堂の営業時間についての記載がありません。",
    [[ON, 3], [FAQ, 2]],
    [("資料には社員食堂の営業時間についての記載がありません。", T, None, "no canteen on the pages")])
add("refusal", "ja", "株主総会はいつ開催されますか。",
    "ご提供いただいた資料には、株主総会の開催時期は記載されていません。",
    [[PU, 10]],
    [("資料には、株主総会の開催時期は記載されていません。", T, None, "p.10 mentions only 取締役会 and the effective date")])
add("refusal", "ja", "会議室は何週間先まで予約できますか。",
    "資料には、会議室を何週間先まで予約できるかについての記載はありません。",
    [[FAQ, 1]],
    [("資料には、会議室を何週間先まで予約できるかについての記載はありません。", F, None, "Q2: 予約は最長で４週間先まで可能です")])
add("refusal", "ja", "新入社員研修の期間はどのくらいですか。",
    "新入社員研修の期間については、資料に記載がありません。",
    [[ON, 8]],
    [("新入社員研修の期間については、資料に記載がありません。", F, None, "6.1: 入社後の最初の２週間は新入社員研修があります")])
add("refusal", "ja", "SMSコードはどのくらいの期間使えますか。",
    "資料には、SMSコードを利用できる期間についての記載はありません。",
    [[IT, 3]],
    [("資料には、SMSコードを利用できる期間についての記載はありません。", F, None, "cross-language; 2.3: accepted as a temporary fallback for seven days")])
add("refusal", "ja", "Lumoクラウドの有料プランに無料のお試し期間はありますか。",
    "資料には、有料プランの無料お試し期間についての記載はありません。",
    [[TE, 3], [TE, 4]],
    [("資料には、有料プランの無料お試し期間についての記載はありません。", T, None, "pages give the fee, billing and refunds, no trial period")])

# ---------------------------------------------------------------- write
out = os.path.dirname(os.path.abspath(__file__))
os.makedirs(out, exist_ok=True)
with open(f"{out}/answers.jsonl", "w", encoding="utf-8") as fa, open(f"{out}/labels_a.jsonl", "w", encoding="utf-8") as fl:
    for i, (kind, lang, q, ans, ctx, claims) in enumerate(A, 1):
        aid = f"h{i:03d}"
        cl = [{"claim_id": f"{aid}.{j}", "claim": c[0]} for j, c in enumerate(claims, 1)]
        fa.write(json.dumps({"answer_id": aid, "language": lang, "kind": kind, "question": q, "answer": ans,
                             "context": ctx, "claims": cl}, ensure_ascii=False) + "\n")
        sup = []
        for j, (c, s, span, note) in enumerate(claims, 1):
            sp = None if span is None else {"doc_id": span[0], "page": span[1], "text": span[2]}
            fl.write(json.dumps({"claim_id": f"{aid}.{j}", "supported": s, "span": sp, "note": note}, ensure_ascii=False) + "\n")
            sup.append(s)
        lab = "supported" if all(sup) else ("unsupported" if not any(sup) else "partial")
        fl.write(json.dumps({"answer_id": aid, "answer_label": lab}, ensure_ascii=False) + "\n")
print(len(A), "answers", sum(len(a[5]) for a in A), "claims")
