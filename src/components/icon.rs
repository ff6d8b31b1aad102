//! Icons: inline SVG from a maintained set (`icondata`'s Lucide icons, ISC), never a symbol
//! that needs an installed font (a stock Linux machine has no emoji font and showed
//! "□ Sound off"; issue #32). Decorative here: the control that holds one names itself (its
//! text or `aria-label`).
//!
//! Drawn by this small component rather than `leptos_icons::Icon`: that one takes its icon and
//! sizes as signals and cost the first render ≈ 4.5 KB gzip more (measured: 382,683 bytes with
//! it, 378,190 with this component); these icons never change once drawn.

pub use icondata::Icon as IconData;
use leptos::prelude::*;

/// A decorative icon, sized to the text beside it.
#[component]
pub fn Icon(icon: IconData) -> impl IntoView {
    view! {
        <svg class="icon" aria-hidden="true" width="1em" height="1em" viewBox=icon.view_box
            fill=icon.fill.unwrap_or("currentColor") stroke=icon.stroke
            stroke-width=icon.stroke_width stroke-linecap=icon.stroke_linecap
            stroke-linejoin=icon.stroke_linejoin inner_html=icon.data></svg>
    }
}

/// The icons the app uses, by what they mean.
pub mod icons {
    pub use icondata::{
        LuArrowDown as LATEST, LuBell as SOUND_ON, LuBellOff as SOUND_OFF,
        LuCalendarClock as AUTOMATIONS, LuChevronDown as EXPANDED, LuChevronRight as COLLAPSED,
        LuCircle as TO_DO, LuCircleCheck as DONE, LuEllipsis as MORE, LuFile as FILE,
        LuInbox as INBOX, LuMenu as MENU, LuMessagesSquare as CONVERSATIONS,
        LuPanelRightClose as PANEL_HIDE, LuPanelRightOpen as PANEL_SHOW, LuPin as PINNED,
        LuPlus as ADD, LuServer as BACKENDS, LuSettings as SETTINGS, LuSparkles as SKILLS,
        LuTriangleAlert as WARNING, LuX as REMOVE,
    };
}
